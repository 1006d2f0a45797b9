/**
 * lib/webhooks/run/build-run.ts: the trigger item (jwtPayload, signature and binary only when the call has them)
 * and the run handed to the executor: `resume` only on a resumed run, and the run's end recorded at the resume
 * address it held (a run that handed out its address, a resumed run), so that a later call hears it finished.
 */
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import { SignJWT } from 'jose';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor } from '../../../lib/index.js';
import { listen, pipelined } from '../../support/raw-http.js';
import { buildRun, buildTriggerItem, type RunParts } from '../../../lib/webhooks/run/build-run.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { publish, waitingApp, type WaitingApp } from '../../support/waiting/app.js';
import { deferred } from '../../support/workflows.js';
import { runWaitsOpener } from '../../../lib/webhooks/waiting/run-waits.js';
import type { WaitingSettings } from '../../../lib/webhooks/waiting/settings.js';

function parts(extra: { payload?: Partial<RunParts['payload']>; jwtPayload?: Record<string, unknown>; resume?: RunParts['resume'] } = {}): RunParts {
  return {
    req: { headers: { 'x-api-key': 'k1' } } as unknown as IncomingMessage,
    match: { webhook: { path: 'in', kind: 'production', workflowId: 'wf', nodeName: 'Webhook', method: 'POST', outputIndex: 0 }, params: { id: '7' } },
    query: { q: '1' },
    payload: { body: { a: 1 }, cleanup: () => Promise.resolve(), ...extra.payload },
    baseUrl: 'https://hooks.example.com',
    call: { callId: 'call-1', signal: new AbortController().signal },
    report: () => undefined,
    prefix: 'webhook',
    jwtPayload: extra.jwtPayload,
    resume: extra.resume,
    // The waiting side a middleware without waitingSecret hands the run stage.
    openWaits: runWaitsOpener({
      secret: undefined, prefix: 'webhook-waiting', store: undefined, limits: {} as WaitingSettings['limits'], maxRunMs: Infinity,
      holder: 'spec', local: new Map(), logger: { warn() {}, error() {} }, onEvent: undefined,
    }),
  } as unknown as RunParts;
}

describe('the trigger item of a call', () => {
  it('holds only the call\'s fields when it has no token, signature or files', () => {
    const item = buildTriggerItem(parts());
    expect(item).to.have.all.keys('json');
    expect(item.json).to.deep.equal({
      headers: { 'x-api-key': 'k1' }, params: { id: '7' }, query: { q: '1' }, body: { a: 1 },
      webhookUrl: 'https://hooks.example.com/webhook/in', executionMode: 'production',
    });
  });

  it('adds the verified JWT payload, the verified signature and the files when the call has them', () => {
    const signature = { scheme: 'standard', messageId: 'msg_1', timestamp: 1700000000 };
    const binary = { data: { data: 'eA==', mimeType: 'text/plain', fileName: 'a.txt' } };
    const item = buildTriggerItem(parts({ jwtPayload: { sub: 'ana' }, payload: { signature, binary } as unknown as Partial<RunParts['payload']> }));
    expect(item.json).to.deep.include({ jwtPayload: { sub: 'ana' }, signature });
    expect(item.binary).to.equal(binary);
  });
});

describe('the run handed to the executor', () => {
  it('has resume only when it was resumed', () => {
    const resume = { waitId: 'w1', state: { order: 7 }, startedAt: 1, resumedAt: 2 };
    expect(buildRun(parts({ resume })).resume).to.equal(resume);
    expect(buildRun(parts()).resume).to.equal(undefined);
  });

  it('without a waitingSecret, rejects waitForCall() and suspend() with WAIT_NOT_CONFIGURED rather than throwing', async () => {
    const run = buildRun(parts());
    for (const asked of [() => run.waitForCall(), () => run.suspend({ state: {} })]) {
      let promise: Promise<unknown> | undefined;
      expect(() => { promise = asked(); }).to.not.throw();
      const error = await (promise as Promise<unknown>).then(() => undefined, (thrown: { code?: string }) => thrown);
      expect(error?.code).to.equal('WAIT_NOT_CONFIGURED');
    }
    expect(() => run.resumeUrl).to.throw(/no waitingSecret/);
    expect(() => run.resumeUrlFor('step')).to.throw(/no waitingSecret/);
  });
});

const START = `${BASE}/webhook/start`;
const host = HOSTS[0] as (typeof HOSTS)[number];

describe('the resume address a run held, once the run ended', () => {
  let app: WaitingApp;
  afterEach(async () => { await app?.close(); });

  it('answers a call made while the run goes on 409 WAIT_RUN_RUNNING, and once it ended 409 WAIT_RUN_FINISHED', async () => {
    const finish = deferred();
    const read: string[] = [];
    const executor: WebhookExecutor = async (run) => {
      read.push(run.resumeUrl, run.resumeUrl, run.resumeUrlFor(''));
      publish(app, run.resumeUrl);
      await finish.promise;
      return { items: [{ json: { done: true } }] };
    };
    app = await waitingApp(host, executor);
    const started = request(app.server).post(START).send({}).then((res) => res);
    const address = await app.nextWait();
    expect(new Set(read).size, 'the run has one address, however often it reads it').to.equal(1);
    const early = await request(app.server).post(address).send({});
    expect([early.status, early.body.code]).to.deep.equal([409, 'WAIT_RUN_RUNNING']);
    finish.resolve();
    expect((await started).body).to.deep.equal({ done: true });
    const late = await request(app.server).post(address).send({});
    expect([late.status, late.body.code]).to.deep.equal([409, 'WAIT_RUN_FINISHED']);
  });

  it('after a resumed run ended, even one that never looked at its waits: 409 WAIT_RUN_FINISHED', async () => {
    const executor: WebhookExecutor = async (run) => {
      if (run.resume !== undefined) return { items: [{ json: { resumed: true } }] };
      publish(app, (await run.suspend({ state: {}, responseMode: 'lastNode' })).resumeUrl);
      return { items: [{ json: { waiting: true } }] };
    };
    app = await waitingApp(host, executor);
    await request(app.server).post(START).send({}).expect(200);
    const address = await app.nextWait();
    await request(app.server).post(address).send({}).expect(200, { resumed: true });
    const again = await request(app.server).post(address).send({});
    expect([again.status, again.body.code]).to.deep.equal([409, 'WAIT_RUN_FINISHED']);
  });
});

/**
 * The same cases on a real node:http server, calls pipelined on one connection (the unit specs above hand-build the
 * request): each run gets its own call's fields, the verified token only on the call that sent one, no resume, and
 * without a waitingSecret waitForCall() rejects with WAIT_NOT_CONFIGURED.
 */
describe('the trigger item and run on a real node:http server, calls pipelined on one connection', () => {
  it('gives each pipelined call a run of its own fields, in order, the verified token only where one was sent', async () => {
    const secret = 'a-long-shared-secret-for-tests-only';
    const registry = new MemoryWebhookRegistry();
    const node = (path: string, authentication: 'none' | 'jwtAuth') => ({ name: 'Webhook', credentials: { ref: 'jwt' }, parameters: { path, httpMethod: 'POST' as const, authentication, responseMode: 'lastNode' as const } });
    await registry.activate({ workflowId: 'plain', nodes: [node('in/:id', 'none')] });
    await registry.activate({ workflowId: 'signed', nodes: [node('jwt', 'jwtAuth')] });
    const middleware = createWebhookMiddleware(registry, async (run) => {
      const item = run.items[0] as { json: Record<string, unknown>; binary?: unknown };
      const waitCode = await run.waitForCall().then(() => undefined, (error: { code?: string }) => error.code);
      const { headers, ...json } = item.json as { headers: Record<string, string> };
      return { items: [{ json: { ...json, key: headers['x-api-key'], fields: Object.keys(item), resumed: run.resume !== undefined, waitCode } }] };
    }, { credentials: () => ({ keyType: 'passphrase', secret }), publicUrl: 'https://hooks.example.com' });
    const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    try {
      const post = (target: string, headers: string, body: string): string =>
        `POST /webhook/${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${headers}\r\n${body}`;
      const token = await new SignJWT({ sub: 'ana' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(secret));
      const answers = await pipelined(running.port, [
        post('in/7?q=1', 'X-Api-Key: k1\r\n', '{"a":1}'),
        post('jwt', `Authorization: Bearer ${token}\r\n`, '{"b":2}'),
        post('in/8', 'X-Api-Key: k2\r\n', '{"c":3}'),
      ]);
      const common = { fields: ['json'], resumed: false, waitCode: 'WAIT_NOT_CONFIGURED', executionMode: 'production' };
      expect(answers.map((answer) => answer.body)).to.deep.equal([
        { ...common, key: 'k1', params: { id: '7' }, query: { q: '1' }, body: { a: 1 }, webhookUrl: 'https://hooks.example.com/webhook/in/:id' },
        { ...common, params: {}, query: {}, body: { b: 2 }, webhookUrl: 'https://hooks.example.com/webhook/jwt', jwtPayload: answers[1]?.body.jwtPayload },
        { ...common, key: 'k2', params: { id: '8' }, query: {}, body: { c: 3 }, webhookUrl: 'https://hooks.example.com/webhook/in/:id' },
      ]);
      expect(answers[1]?.body.jwtPayload).to.deep.include({ sub: 'ana' });
    } finally {
      await running.close();
    }
  });
});
