/**
 * Which calls history keeps (recorder), over HTTP in Express 5 with a MemoryHistoryStore: production calls that
 * passed their guards and rate limits (not test calls, not 401 or 429), the refusals after that (400, 422) and every
 * run's outcome, as `history.keep` and a workflow's `settings.history` say. What is kept of a call is
 * kept-call.spec.ts's; what each store does with a record is the history contract suite's.
 */
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookError, type WebhookRun } from '../../../lib/index.js';
import { deferred } from '../../support/workflows.js';
import { hookWorkflow, postJson, startHistoryApp, type HistoryApp } from '../../support/history-app.js';
import { closeAll } from '../../support/close-all.js';

const failing = (run: WebhookRun) => {
  if ((run.items[0]?.json.body as { fail?: boolean } | undefined)?.fail === true) throw new Error('the CRM refused the order');
  return { items: run.items };
};

describe('call history: which calls are kept', () => {
  let app: HistoryApp | undefined;
  afterEach(() => closeAll(() => app?.close()));

  it('keeps nothing, and has no history API, without the history option', () => {
    const middleware = createWebhookMiddleware(new MemoryWebhookRegistry(), (run) => ({ items: run.items }));
    expect(middleware.history).to.equal(undefined);
  });

  it('keeps every production call by default, answered or failed', async () => {
    app = await startHistoryApp({ workflows: [hookWorkflow('orders', 'orders')], executor: failing });
    await postJson(app.url('orders'), { ok: true }, { 'x-request-id': 'ok-1' });
    await postJson(app.url('orders'), { fail: true }, { 'x-request-id': 'fail-1' });
    const kept = await app.kept();
    expect(kept.map((entry) => [entry.requestId, entry.status, entry.code])).to.deep.equal([['fail-1', 500, 'WORKFLOW_FAILED'], ['ok-1', 200, undefined]]);
  });

  it('with keep: "failed", keeps only calls that failed or were refused', async () => {
    app = await startHistoryApp({
      workflows: [hookWorkflow('orders', 'orders'), hookWorkflow('typed', 'typed', {}, { schemas: { Webhook: { body: { type: 'object', required: ['id'] } } } })],
      executor: failing, history: { keep: 'failed' },
    });
    await postJson(app.url('orders'), { ok: true }, { 'x-request-id': 'ok-1' });
    await postJson(app.url('orders'), { fail: true }, { 'x-request-id': 'fail-1' });
    await postJson(app.url('typed'), {}, { 'x-request-id': 'invalid-1' });
    const kept = await app.kept();
    expect(kept.map((entry) => [entry.requestId, entry.status, entry.code])).to.deep.equal([['invalid-1', 422, 'PAYLOAD_INVALID'], ['fail-1', 500, 'WORKFLOW_FAILED']]);
  });

  it('with keep: "none", keeps only the calls of workflows whose settings.history asks', async () => {
    app = await startHistoryApp({
      workflows: [hookWorkflow('orders', 'orders'), hookWorkflow('audited', 'audited', {}, { settings: { history: 'all' } })], history: { keep: 'none' },
    });
    await postJson(app.url('orders'), { n: 1 });
    await postJson(app.url('audited'), { n: 2 });
    expect((await app.kept()).map((entry) => entry.workflowId)).to.deep.equal(['audited']);
  });

  it('lets a workflow\'s settings.history keep fewer calls than the middleware\'s keep', async () => {
    app = await startHistoryApp({
      workflows: [hookWorkflow('quiet', 'quiet', {}, { settings: { history: 'none' } }), hookWorkflow('errors', 'errors', {}, { settings: { history: 'failed' } })],
      executor: failing,
    });
    await postJson(app.url('quiet'), { fail: true });
    await postJson(app.url('errors'), { ok: true });
    await postJson(app.url('errors'), { fail: true }, { 'x-request-id': 'errors-failed' });
    expect((await app.kept()).map((entry) => entry.requestId)).to.deep.equal(['errors-failed']);
  });

  it('refuses a workflow whose settings.history is not all, failed or none at activation, with WEBHOOK_INVALID_NODE', async () => {
    const registry = new MemoryWebhookRegistry();
    const refused = await registry.activate(hookWorkflow('orders', 'orders', {}, { settings: { history: 'errors' as never } })).then(() => undefined, (error: WebhookError) => error);
    expect(refused?.code).to.equal('WEBHOOK_INVALID_NODE');
    expect(refused?.message).to.include('settings.history must be "all", "failed" or "none"; got "errors"');
    expect(await registry.list()).to.have.length(0);
  });

  it('does not keep test calls', async () => {
    app = await startHistoryApp({ workflows: [hookWorkflow('orders', 'orders')] });
    const listen = await app.registry.listenForTest(hookWorkflow('orders', 'orders'));
    const answer = await postJson(app.url('orders', 'webhook-test'), { n: 1 });
    expect(answer.status).to.equal(200);
    await postJson(app.url('orders'), { n: 2 }, { 'x-request-id': 'production' });
    expect((await app.kept()).map((entry) => entry.requestId)).to.deep.equal(['production']);
    await listen.cancel();
  });

  it('does not keep calls refused by their guard (401) or rate limit (429)', async () => {
    app = await startHistoryApp({
      workflows: [
        { workflowId: 'guarded', nodes: [{ name: 'Webhook', credentials: { ref: 'basic' }, parameters: { path: 'guarded', httpMethod: 'POST', authentication: 'basicAuth' } }] },
        hookWorkflow('limited', 'limited', {}, { settings: { rateLimit: { limit: 1, windowMs: 60_000 } } }),
      ],
      middleware: { credentials: () => ({ user: 'ada', password: 'lovelace' }) },
    });
    expect((await postJson(app.url('guarded'), { n: 1 })).status).to.equal(401);
    expect((await postJson(app.url('limited'), { n: 1 }, { 'x-request-id': 'first' })).status).to.equal(200);
    expect((await postJson(app.url('limited'), { n: 2 })).status).to.equal(429);
    expect((await app.kept()).map((entry) => entry.requestId)).to.deep.equal(['first']);
  });

  it('keeps a call refused for malformed JSON (400) with its code', async () => {
    app = await startHistoryApp({ workflows: [hookWorkflow('orders', 'orders')], history: { bodyBytes: 1024 } });
    const answer = await fetch(app.url('orders'), { method: 'POST', body: '{"n": ', headers: { 'content-type': 'application/json', 'x-request-id': 'broken' } });
    expect(answer.status).to.equal(400);
    const [entry] = await app.kept();
    expect([entry?.requestId, entry?.status, entry?.code]).to.deep.equal(['broken', 400, (await answer.json() as { code: string }).code]);
    expect(entry?.data.error?.code).to.equal(entry?.code);
    expect(app.runs).to.have.length(0);
  });

  it('keeps a call its payload schema refused (422) with its code and the schema\'s findings', async () => {
    app = await startHistoryApp({ workflows: [hookWorkflow('typed', 'typed', {}, { schemas: { Webhook: { body: { type: 'object', required: ['id'] } } } })] });
    expect((await postJson(app.url('typed'), { name: 'no id' })).status).to.equal(422);
    const [entry] = await app.kept();
    expect([entry?.status, entry?.code]).to.deep.equal([422, 'PAYLOAD_INVALID']);
    expect(entry?.data.error?.errors?.map((error) => error.path)).to.deep.equal(['/body/id']);
  });

  it('keeps a call whose caller hung up before the answer, with no status and BODY_ABORTED', async () => {
    const started = deferred();
    const stopped = deferred();
    app = await startHistoryApp({
      workflows: [hookWorkflow('slow', 'slow')],
      executor: (run) => new Promise((_resolve, reject) => {
        started.resolve();
        run.signal.addEventListener('abort', () => { stopped.resolve(); reject(run.signal.reason as Error); });
      }),
    });
    const caller = httpRequest(app.url('slow'), { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'gone' } });
    caller.on('error', () => undefined);
    caller.end('{}');
    await started.promise;
    caller.destroy();
    await stopped.promise;
    const entry = await keptOne(app);
    expect(entry.requestId).to.equal('gone');
    expect(entry).not.to.have.property('status');
    expect(entry.code).to.equal('BODY_ABORTED');
  });

  it('keeps an onReceived call whose run fails after the answer with status 200 and WORKFLOW_FAILED', async () => {
    const failed = deferred();
    app = await startHistoryApp({ workflows: [hookWorkflow('later', 'later', { responseMode: 'onReceived' })], executor: failing });
    app.middleware.subscribe((event) => { if (event.type === 'failed') failed.resolve(); });
    expect((await postJson(app.url('later'), { fail: true })).status).to.equal(200);
    await failed.promise;
    const entry = await keptOne(app);
    expect([entry.status, entry.code, entry.data.error?.code]).to.deep.equal([200, 'WORKFLOW_FAILED', 'WORKFLOW_FAILED']);
  });
});

/** Waits until the call's record is written (the writer adds it once the call and its run are over), then reads it. */
async function keptOne(app: HistoryApp) {
  for (let tries = 0; tries < 200; tries += 1) {
    const [entry] = await app.kept();
    if (entry !== undefined) return entry;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('no call was kept');
}
