/**
 * Replaying one kept call (replay, replayable) through the webhook as active now, in Express 5 with a
 * MemoryHistoryStore: the run learns it is a replay and by whom; the original's guards are not run again, its
 * payload schema is; a second replay needs `again`; a call that cannot run as it came is refused, saying why; the
 * replay is a new entry linked to the original, with its own outcome.
 */
import { expect } from 'chai';
import express from 'express';
import {
  createWebhookMiddleware, MemoryHistoryStore, MemoryWebhookRegistry, type HistoryEntry, type WebhookError, type WebhookExecutor, type WebhookHistory,
  type WebhookMiddleware, type WebhookRun, type WorkflowWebhooks,
} from '../../../lib/index.js';
import type { QueuedWebhookRun } from '../../../lib/queue/index.js';
import { hookWorkflow, postJson, startHistoryApp, type HistoryApp, type HistoryAppOptions } from '../../support/history-app.js';
import { queueSetup } from '../../support/queue/setup.js';
import { listen } from '../../support/raw-http.js';
import { RedisServer, REDIS } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';
import { closeAll } from '../../support/close-all.js';

const ORDERS = hookWorkflow('orders', 'orders');
const typed = (body: Record<string, unknown>): WorkflowWebhooks => hookWorkflow('orders', 'orders', {}, { schemas: { Webhook: { body } } });

/** What a replay rejected with (it must reject). */
async function refusal(replaying: Promise<unknown>): Promise<WebhookError> {
  const outcome = await replaying.then(() => undefined, (error: WebhookError) => error);
  if (outcome === undefined) throw new Error('the replay ran; it should have been refused');
  return outcome;
}

describe('replaying a kept call', () => {
  let app: HistoryApp | undefined;
  afterEach(() => closeAll(() => app?.close()));

  async function start(options: Partial<HistoryAppOptions> = {}): Promise<HistoryApp> {
    app = await startHistoryApp({ workflows: [ORDERS], ...options, history: { bodyBytes: 4096, fileBytes: 1024, answerBytes: 4096, ...options.history } });
    return app;
  }

  /** Sends one call and gives its kept entry. */
  async function keptCall(path: string, body: unknown, headers: Record<string, string> = {}): Promise<HistoryEntry> {
    await postJson((app as HistoryApp).url(path), body, headers);
    const [entry] = await (app as HistoryApp).kept();
    if (entry === undefined) throw new Error('the call was not kept');
    return entry;
  }

  it('runs the kept call again, and tells the run which call it replays, when it came and who replays it', async () => {
    await start();
    const original = await keptCall('orders', { order: 7 });
    const result = await app!.history.replay(original.id, { by: 'ada@example.com' });
    expect(app!.runs).to.have.length(2);
    const replayed = app!.runs[1] as WebhookRun;
    expect(replayed.replay).to.deep.equal({ of: original.id, at: original.at, by: 'ada@example.com' });
    expect(replayed.items[0]?.json.body).to.deep.equal({ order: 7 });
    expect(app!.runs[0]?.replay).to.equal(undefined);
    expect(result).to.deep.include({ of: original.id, status: 200 });
  });

  it('keeps the replay as a new entry linked to the original, with its own outcome', async () => {
    await start();
    const original = await keptCall('orders', { order: 7 });
    const { entryId } = await app!.history.replay(original.id, { by: 'ada' });
    await app!.history.flush();
    const replay = await app!.history.get(entryId);
    expect(replay).to.deep.include({ replayOf: original.id, replayedBy: 'ada', status: 200, workflowId: 'orders', route: original.route });
    expect((replay?.data.answer as { json: { body: unknown } }[])[0]?.json.body).to.deep.equal({ order: 7 });
    expect((await app!.history.find({ replayOf: original.id })).entries.map((entry) => entry.id)).to.deep.equal([entryId]);
    expect((await app!.history.get(original.id))?.replays).to.equal(1);
  });

  it('lets a replay under way end when the middleware closes, and keeps its entry in the last batch', async () => {
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    await start({ executor: async (run) => { if (run.replay !== undefined) await gate; return { items: run.items }; } });
    const original = await keptCall('orders', { order: 7 });
    const replaying = app!.history.replay(original.id, { by: 'ada' });
    const closing = app!.middleware.close({ timeoutMs: 5000 });
    setImmediate(open);
    const { entryId } = await replaying;
    await closing;
    const kept = await app!.store.find({ limit: 10 });
    expect(kept.records.map((record) => record.id)).to.include(entryId);
  });

  it('gives the replayed run the webhookUrl the original caller used, without publicUrl', async () => {
    await start();
    const original = await keptCall('orders', { order: 7 });
    await app!.history.replay(original.id, { by: 'ada' });
    expect(app!.runs[1]?.items[0]?.json.webhookUrl).to.equal(app!.runs[0]?.items[0]?.json.webhookUrl).and.to.equal(app!.url('orders'));
  });

  it('does not run the original\'s guards again: a basicAuth webhook\'s call replays without credentials', async () => {
    await start({
      workflows: [{ workflowId: 'guarded', nodes: [{ name: 'Webhook', credentials: { ref: 'basic' }, parameters: { path: 'guarded', httpMethod: 'POST', authentication: 'basicAuth', responseMode: 'lastNode' } }] }],
      middleware: { credentials: () => ({ user: 'ada', password: 'lovelace' }) },
    });
    const original = await keptCall('guarded', { n: 1 }, { authorization: `Basic ${Buffer.from('ada:lovelace').toString('base64')}` });
    expect(original.data.headers.authorization).to.equal('[redacted]');
    const result = await app!.history.replay(original.id, { by: 'ops' });
    expect(result.status).to.equal(200);
    expect(app!.runs).to.have.length(2);
  });

  it('checks the payload schema as it is now: refused with its findings, nothing runs, and the claim is not used', async () => {
    await start({ workflows: [typed({ type: 'object' })] });
    const original = await keptCall('orders', { name: 'tea' });
    await app!.registry.activate(typed({ type: 'object', required: ['qty'] }));
    const refused = await refusal(app!.history.replay(original.id, { by: 'ops' }));
    expect(refused.code).to.equal('PAYLOAD_INVALID');
    expect((refused as WebhookError & { errors: { path: string }[] }).errors.map((error) => error.path)).to.deep.equal(['/body/qty']);
    expect(app!.runs).to.have.length(1);
    await app!.registry.activate(typed({ type: 'object' }));
    const ran = await app!.history.replay(original.id, { by: 'ops' });
    expect(ran.status).to.equal(200);
    expect(app!.runs).to.have.length(2);
  });

  it('refuses a second replay with HISTORY_REPLAYED_BEFORE, and runs it again only with again: true', async () => {
    await start();
    const original = await keptCall('orders', { order: 7 });
    await app!.history.replay(original.id, { by: 'ops' });
    const twice = await refusal(app!.history.replay(original.id, { by: 'ops' }));
    expect([twice.code, twice.status]).to.deep.equal(['HISTORY_REPLAYED_BEFORE', 409]);
    expect(app!.runs).to.have.length(2);
    await app!.history.replay(original.id, { by: 'ops', again: true });
    expect(app!.runs).to.have.length(3);
    expect((await app!.history.get(original.id))?.replays).to.equal(2);
  });

  it('runs one of two replays of the same call started at once (a double click)', async () => {
    await start();
    const original = await keptCall('orders', { order: 7 });
    const outcomes = await Promise.allSettled([app!.history.replay(original.id, { by: 'ops' }), app!.history.replay(original.id, { by: 'ops' })]);
    expect(outcomes.map((outcome) => outcome.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    expect(app!.runs).to.have.length(2);
  });

  describe('refuses with HISTORY_NOT_REPLAYABLE, saying why', () => {
    it('a call whose body was larger than bodyBytes', async () => {
      await start({ history: { bodyBytes: 10 } });
      const body = { note: 'a longer body than ten bytes' };
      const original = await keptCall('orders', body);
      const refused = await refusal(app!.history.replay(original.id, { by: 'ops' }));
      expect([refused.code, refused.message]).to.deep.equal(['HISTORY_NOT_REPLAYABLE', `The kept call ${original.id} cannot be replayed: `
        + `its body (${JSON.stringify(body).length} bytes) was larger than history.bodyBytes and was kept in part only.`]);
      expect(app!.runs).to.have.length(1);
    });

    it('a call whose body was not kept', async () => {
      await start({ history: { bodyBytes: 0 } });
      const original = await keptCall('orders', { order: 7 });
      const refused = await refusal(app!.history.replay(original.id, { by: 'ops' }));
      expect([refused.code, refused.message]).to.deep.equal(['HISTORY_NOT_REPLAYABLE', `The kept call ${original.id} cannot be replayed: its body was not kept.`]);
    });

    it('a call whose file was not kept', async () => {
      await start({ history: { fileBytes: 2 } });
      const form = new FormData();
      form.append('scan', new Blob([Buffer.from('PDF-BYTES')], { type: 'application/pdf' }), 'scan.pdf');
      await (await fetch(app!.url('orders'), { method: 'POST', body: form })).text();
      const [original] = await app!.kept();
      const refused = await refusal(app!.history.replay(original?.id as string, { by: 'ops' }));
      expect([refused.code, refused.message]).to.deep.equal(['HISTORY_NOT_REPLAYABLE', `The kept call ${original?.id} cannot be replayed: its file "scan" (9 bytes) was not kept.`]);
    });

    it('a call whose workflow is no longer active, though another is', async () => {
      await start({ workflows: [ORDERS, hookWorkflow('other', 'other')] });
      const original = await keptCall('orders', { order: 7 });
      await app!.registry.deactivate('orders');
      const refused = await refusal(app!.history.replay(original.id, { by: 'ops' }));
      expect([refused.code, refused.message]).to.deep.equal(['HISTORY_NOT_REPLAYABLE',
        `The kept call ${original.id} cannot be replayed: workflow "orders" has no active POST webhook on node "Webhook".`]);
      expect(app!.runs).to.have.length(1);
    });

    it('a call that resumed a waiting run', async () => {
      let resumeUrl = '';
      await start({
        middleware: { waitingSecret: 'a-waiting-secret-of-at-least-32-characters' },
        executor: async (run) => {
          if (run.resume === undefined) resumeUrl = (await run.suspend({ state: {}, expiresInMs: 60_000 })).resumeUrl;
          return { items: run.items };
        },
      });
      await postJson(app!.url('orders'), {});
      await postJson(resumeUrl, { approved: true }, { 'x-request-id': 'the-resume' });
      const resume = (await app!.kept()).find((entry) => entry.requestId === 'the-resume') as HistoryEntry;
      expect(resume.waitId).to.be.a('string');
      const refused = await refusal(app!.history.replay(resume.id, { by: 'ops' }));
      expect([refused.code, refused.message]).to.deep.equal(['HISTORY_NOT_REPLAYABLE', `The kept call ${resume.id} cannot be replayed: it resumed a waiting run, whose wait is over.`]);
    });
  });

  it('refuses an id no call has with HISTORY_NOT_FOUND', async () => {
    await start();
    const unknown = await refusal(app!.history.replay('000000000-0123456789abcdef', { by: 'ops' }));
    expect([unknown.code, unknown.status]).to.deep.equal(['HISTORY_NOT_FOUND', 404]);
    const malformed = await refusal(app!.history.replay('../etc/passwd', { by: 'ops' }));
    expect(malformed.code).to.equal('HISTORY_NOT_FOUND');
  });

  it('answers a responseNode webhook\'s replay with the status the run gave respond()', async () => {
    await start({
      workflows: [hookWorkflow('orders', 'orders', { responseMode: 'responseNode' })],
      executor: (run) => { run.respond({ status: 201, body: { created: true } }); return { items: [] }; },
    });
    const original = await keptCall('orders', {});
    expect(original.status).to.equal(201);
    expect((await app!.history.replay(original.id, { by: 'ops' })).status).to.equal(201);
  });

  it('resolves a replay whose run fails with its code and status 500, and tells onWorkflowError', async () => {
    let broken = false;
    await start({ executor: (run) => { if (broken) throw new Error('still broken'); return { items: run.items }; } });
    const original = await keptCall('orders', { order: 7 });
    broken = true;
    const result = await app!.history.replay(original.id, { by: 'ops' });
    expect(result).to.deep.include({ status: 500, code: 'WORKFLOW_FAILED' });
    expect(app!.workflowErrors.map((error) => error.code)).to.deep.equal(['WORKFLOW_FAILED']);
    await app!.history.flush();
    expect(await app!.history.get(result.entryId)).to.deep.include({ status: 500, code: 'WORKFLOW_FAILED', replayOf: original.id });
  });

  it('stops a replay whose run never ends after maxRunMs', async () => {
    let hang = false;
    await start({
      middleware: { maxRunMs: 50 },
      executor: (run) => hang ? new Promise(() => undefined) : { items: run.items },
    });
    const original = await keptCall('orders', { order: 7 });
    hang = true;
    const result = await app!.history.replay(original.id, { by: 'ops' });
    expect(result).to.deep.include({ code: 'WORKFLOW_TIMEOUT', status: 524 });
    expect(app!.runs[1]?.signal.aborted).to.equal(true);
  });
});

if (findService(REDIS) === undefined) {
  markNotRun('replaying a kept call in queue mode', REDIS);
} else {
  describe('replaying a kept call in queue mode', function queueMode() {
    this.timeout(20_000);
    let server: RedisServer;
    let middleware: WebhookMiddleware | undefined;
    let http: Awaited<ReturnType<typeof listen>> | undefined;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(() => closeAll(() => server?.stop()));
    const setup = queueSetup(() => server);
    afterEach(() => closeAll(() => http?.close(), () => middleware?.close({ timeoutMs: 500 })));

    it('gives a replay\'s claim back when the queue refuses its job, so that it replays later without again', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(hookWorkflow('intake', 'intake', { responseMode: 'onReceived' }, { settings: { maxQueued: 1 } }));
      middleware = createWebhookMiddleware(registry, setup.queue().executor as WebhookExecutor, {
        logger: { error: () => undefined, warn: () => undefined }, history: { store: new MemoryHistoryStore(), bodyBytes: 4096 },
      });
      const app = express();
      app.use('/hooks', middleware);
      http = await listen(app);
      // No worker yet: the call's job waits, and it is the one run the workflow may have queued.
      expect((await postJson(`http://127.0.0.1:${http.port}/hooks/webhook/intake`, { order: 8 })).status).to.equal(200);
      const history = middleware.history as WebhookHistory;
      await history.flush();
      const [original] = (await history.find({})).entries;
      const refused = await refusal(history.replay(original?.id as string, { by: 'ops' }));
      expect(refused.code).to.equal('TOO_MANY_RUNS');
      expect((await history.get(original?.id as string))?.replays).to.equal(0);
      const runs: QueuedWebhookRun[] = [];
      setup.worker(async (run) => { runs.push(run); return { items: run.items }; });
      for (const deadline = Date.now() + 10_000; runs.length === 0 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await history.replay(original?.id as string, { by: 'ops' })).to.deep.include({ of: original?.id, status: 200 });
      for (const deadline = Date.now() + 10_000; runs.length < 2 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(runs[1]?.replay?.of).to.equal(original?.id);
    });

    it('links the call and its replay to their jobs, and the worker\'s run learns it is a replay', async () => {
      const runs: QueuedWebhookRun[] = [];
      setup.worker(async (run) => { runs.push(run); return { items: run.items }; });
      const registry = new MemoryWebhookRegistry();
      await registry.activate(ORDERS);
      middleware = createWebhookMiddleware(registry, setup.queue().executor as WebhookExecutor, {
        logger: { error: () => undefined, warn: () => undefined }, history: { store: new MemoryHistoryStore(), bodyBytes: 4096 },
      });
      const app = express();
      app.use('/hooks', middleware);
      http = await listen(app);
      const answer = await postJson(`http://127.0.0.1:${http.port}/hooks/webhook/orders`, { order: 7 });
      expect(answer.status).to.equal(200);
      const history = middleware.history as WebhookHistory;
      await history.flush();
      const [original] = (await history.find({})).entries;
      expect(original?.jobId).to.equal(runs[0]?.jobId);
      const result = await history.replay(original?.id as string, { by: 'ops' });
      expect(result).to.deep.include({ status: 200, jobId: runs[1]?.jobId });
      expect(runs[1]?.replay).to.deep.equal({ of: original?.id, at: original?.at, by: 'ops' });
      expect(runs[1]?.items[0]?.json.body).to.deep.equal({ order: 7 });
      await history.flush();
      expect((await history.get(result.entryId))?.jobId).to.equal(runs[1]?.jobId);
    });
  });
}
