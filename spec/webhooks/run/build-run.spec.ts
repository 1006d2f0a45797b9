/**
 * lib/webhooks/run/build-run.ts: the trigger item (jwtPayload, signature and binary only when the call has them)
 * and the run handed to the executor: `resume` only on a resumed run, and the run's end recorded at the resume
 * address it held (a run that handed out its address, a resumed run), so that a later call hears it finished.
 */
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import type { WebhookExecutor } from '../../../lib/index.js';
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
  afterEach(async () => { await app.close(); });

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
