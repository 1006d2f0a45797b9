import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  type WebhookEvent,
  type WebhookRegistry,
  type WebhookRun,
} from '../../lib/index.js';
import { BASE, HOSTS } from '../support/apps.js';
import { eventually } from '../support/temp-dir.js';
import { deferred, workflow } from '../support/workflows.js';

interface Logged { level: 'error' | 'warn'; fields: Record<string, unknown>; message: string | undefined }

function recorder(): { logged: Logged[]; logger: { error: (f: Record<string, unknown>, m?: string) => void; warn: (f: Record<string, unknown>, m?: string) => void } } {
  const logged: Logged[] = [];
  return {
    logged,
    logger: {
      error: (fields, message) => logged.push({ level: 'error', fields, message }),
      warn: (fields, message) => logged.push({ level: 'warn', fields, message }),
    },
  };
}

for (const host of HOSTS) {
  describe(`the logger, call ids and events in ${host.name}`, () => {
    it('gives the logger an internal failure with its cause, and the caller a plain 500', async () => {
      const { logged, logger } = recorder();
      const broken: WebhookRegistry = Object.assign(new MemoryWebhookRegistry(), {
        lookup: () => Promise.reject(new Error('registry database is down')),
      });
      const app = host.build(createWebhookMiddleware(broken, async () => ({ items: [] }), { logger }));
      const res = await request(app).get(`${BASE}/webhook/x`).set('x-request-id', 'req-7').expect(500);
      expect(res.body.code).to.equal('INTERNAL_ERROR');
      expect(res.body.message).to.not.include('database');
      expect(logged).to.have.length(1);
      expect(logged[0]?.fields.callId).to.equal('req-7');
      expect((logged[0]?.fields.err as { cause: { message: string } }).cause.message).to.equal('registry database is down');
    });

    it('gives the logger a credentials resolver that throws, with its cause', async () => {
      const { logged, logger } = recorder();
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Locked', parameters: { path: 'locked', authentication: 'basicAuth' } }] });
      const app = host.build(createWebhookMiddleware(registry, async () => ({ items: [] }), {
        logger, credentials: () => { throw new Error('vault sealed'); },
      }));
      await request(app).get(`${BASE}/webhook/locked`).auth('a', 'b').expect(500);
      expect(JSON.stringify(logged[0]?.fields)).to.include('vault sealed');
      expect(logged[0]?.fields.workflowId).to.equal('wf');
    });

    it('says a lastNode workflow failure was answered with an error, not that the caller had its answer', async () => {
      const { logged, logger } = recorder();
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'fails', responseMode: 'lastNode' }));
      const app = host.build(createWebhookMiddleware(registry, async () => { throw new Error('step 3 broke'); }, { logger }));
      await request(app).get(`${BASE}/webhook/fails`).expect(500);
      expect(logged).to.have.length(1);
      expect(logged[0]?.message).to.equal('workflow failed; the caller is answered 500 WORKFLOW_FAILED');
      expect(JSON.stringify(logged[0]?.fields)).to.include('step 3 broke');
    });

    it('takes the call id from X-Request-Id for the run and every event, else makes one', async () => {
      const events: WebhookEvent[] = [];
      const runs: WebhookRun[] = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'ok' }));
      const app = host.build(createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [] }; }, { onEvent: (event) => events.push(event) }));
      await request(app).get(`${BASE}/webhook/ok`).set('x-request-id', 'abc-123').expect(200);
      await request(app).get(`${BASE}/webhook/ok`).expect(200);
      await eventually(() => events.filter((event) => event.type === 'responded').length === 2);
      expect(runs[0]?.callId).to.equal('abc-123');
      expect(runs[1]?.callId).to.match(/^[0-9a-f-]{36}$/);
      expect(new Set(events.map((event) => event.callId))).to.deep.equal(new Set(['abc-123', runs[1]?.callId]));
      const first = events.filter((event) => event.callId === 'abc-123');
      expect(first[0]).to.include({ type: 'received', workflowId: 'wf', nodeName: 'Webhook' });
      expect(first.at(-1)?.type).to.equal('responded');
    });

    it('takes the call id from the header named by requestIdHeader', async () => {
      const runs: WebhookRun[] = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'ok' }));
      const app = host.build(createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [] }; }, { requestIdHeader: 'X-Correlation-Id' }));
      await request(app).get(`${BASE}/webhook/ok`).set('x-correlation-id', 'corr-9').set('x-request-id', 'not-this').expect(200);
      expect(runs[0]?.callId).to.equal('corr-9');
    });

    it('puts the error and the workflow on rejected, reports a call never answered as such, and a stopped run\'s own failure after it', async () => {
      const events: WebhookEvent[] = [];
      const registry = new MemoryWebhookRegistry();
      const started = deferred();
      await registry.activate({ workflowId: 'wf', nodes: [
        { name: 'Locked', parameters: { path: 'locked', authentication: 'headerAuth' } },
        { name: 'Slow', parameters: { path: 'slow', responseMode: 'lastNode' } },
      ] });
      const app = host.build(createWebhookMiddleware(registry, (run) => {
        started.resolve();
        return new Promise((_, reject) => run.signal.addEventListener('abort', () => setTimeout(() => reject(new Error('stopped')), 20)));
      }, { onEvent: (event) => events.push(event), credentials: () => ({ name: 'x-key', value: 'k' }), logger: recorder().logger }));
      await request(app).get(`${BASE}/webhook/locked`).expect(403);
      const rejected = events.find((event) => event.type === 'rejected');
      expect(rejected).to.include({ workflowId: 'wf', nodeName: 'Locked', code: 'AUTH_INVALID' });
      expect(rejected?.type === 'rejected' && rejected.error.code).to.equal('AUTH_INVALID');
      events.length = 0;
      const hangUp = request(app).get(`${BASE}/webhook/slow`).timeout(50).then(() => undefined, () => undefined);
      await started.promise;
      await hangUp;
      await eventually(() => events.some((event) => event.type === 'responded'), 2000);
      const responded = events.find((event) => event.type === 'responded');
      expect(responded).to.include({ status: undefined, completed: false });
      // The run, told to stop, rejects 20 ms later with an error of its own: that failure is the workflow's, and it
      // is reported after responded, as README's table of events says.
      await eventually(() => events.some((event) => event.type === 'failed'), 2000);
      expect(events.map((event) => event.type)).to.deep.equal(['received', 'started', 'responded', 'failed']);
    });
  });
}

describe('unknown node options', () => {
  it('are named to the logger, once, when their webhook is first served', async () => {
    const { logged, logger } = recorder();
    const registry = new MemoryWebhookRegistry();
    const [webhook] = await registry.activate(workflow('wf', { path: 'typo', options: { rawBdy: true } }));
    expect(webhook?.warnings?.map((warning) => warning.path)).to.deep.equal(['options.rawBdy']);
    const app = (HOSTS[0] as (typeof HOSTS)[number]).build(createWebhookMiddleware(registry, async () => ({ items: [] }), { logger }));
    await request(app).get(`${BASE}/webhook/typo`).expect(200);
    await request(app).get(`${BASE}/webhook/typo`).expect(200);
    expect(logged.filter((entry) => entry.level === 'warn').map((entry) => entry.fields.path)).to.deep.equal(['options.rawBdy']);
  });
});
