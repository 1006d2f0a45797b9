import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookError, type WebhookExecutor, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { listen, sendTo } from '../../support/raw-http.js';
import { until, watched, withFakeTimers } from '../../support/fake-clock.js';
import { withDeadline, type StopSlot } from '../../../lib/webhooks/run/deadline.js';
import { WebhookError as WebhookErrorClass } from '../../../lib/core/errors.js';
import { eventually } from '../../support/temp-dir.js';
import { deferred, workflow } from '../../support/workflows.js';
import { request as httpRequest } from 'node:http';

for (const host of HOSTS) {
  describe(`the response deadline in ${host.name}`, () => {
    let registry: MemoryWebhookRegistry;
    let executor: WebhookExecutor;
    let runs: WebhookRun[];
    let reports: WebhookError[];

    const build = (options: Parameters<typeof createWebhookMiddleware>[2] = {}) => host.build(createWebhookMiddleware(registry, (run) => {
      runs.push(run);
      return executor(run);
    }, { onWorkflowError: (error) => reports.push(error), ...options }));

    beforeEach(async () => {
      registry = new MemoryWebhookRegistry();
      runs = [];
      reports = [];
      await registry.activate(workflow('wf', { path: 'slow', httpMethod: 'POST', responseMode: 'lastNode' }));
      await registry.activate(workflow('wf-node', { path: 'slow-node', httpMethod: 'POST', responseMode: 'responseNode' }));
    });

    it('answers 524 with advice when a hanging workflow misses the deadline, and aborts its signal', async () => {
      executor = () => new Promise(() => undefined);
      const res = await request(build({ responseTimeoutMs: 50 })).post(`${BASE}/webhook/slow`).expect(524);
      expect((res as unknown as { res: { statusMessage: string } }).res.statusMessage).to.equal('A Timeout Occurred');
      expect(res.body.code).to.equal('WORKFLOW_TIMEOUT');
      expect(res.body.message).to.equal('The workflow did not respond within 0.05 seconds.');
      expect(res.body.hint).to.match(/poll a second webhook/);
      expect(runs[0]?.signal.aborted).to.equal(true);
      expect((runs[0]?.signal.reason as WebhookError).code).to.equal('WORKFLOW_TIMEOUT');
    });

    it('answers with the configured timeoutStatus', async () => {
      executor = () => new Promise(() => undefined);
      await request(build({ responseTimeoutMs: 30, timeoutStatus: 504 })).post(`${BASE}/webhook/slow`).expect(504);
    });

    it('drops a result that arrives after the deadline and keeps serving', async () => {
      const late = deferred<{ items: { json: Record<string, unknown> }[] }>();
      executor = () => late.promise;
      const app = build({ responseTimeoutMs: 30 });
      await request(app).post(`${BASE}/webhook/slow`).expect(524);
      late.resolve({ items: [{ json: { late: true } }] });
      executor = async () => ({ items: [{ json: { fresh: true } }] });
      await request(app).post(`${BASE}/webhook/slow`).expect(200, { fresh: true });
    });

    it('applies to responseNode too, and reports a respond() that comes after it', async () => {
      const gate = deferred();
      executor = async (run) => { await gate.promise; run.respond({ body: 'too late' }); return { items: [] }; };
      await request(build({ responseTimeoutMs: 30 })).post(`${BASE}/webhook/slow-node`).expect(524);
      gate.resolve();
      await eventually(() => reports.some((r) => r.code === 'WORKFLOW_INVALID_RESPONSE'));
    });

    it('can be turned off with 0: a caller still waits a day later, past the 100 s default', async () => {
      const gate = deferred();
      executor = async () => { await gate.promise; return { items: [{ json: { ok: true } }] }; };
      const app = build({ responseTimeoutMs: 0 });
      await withFakeTimers(async (clock) => {
        const answer = watched(request(app).post(`${BASE}/webhook/slow`).then((res) => res));
        await until(() => runs.length === 1, 'the run started');
        await clock.tickAsync(24 * 60 * 60 * 1000);
        expect(answer.settled, 'answered before the run ended').to.equal(false);
        gate.resolve();
        await until(() => answer.settled, 'the caller answered');
        expect([answer.value?.status, answer.value?.body]).to.deep.equal([200, { ok: true }]);
        expect(runs[0]?.signal.aborted).to.equal(false);
      });
    });

    it('does not cut onReceived calls, whose answer is immediate', async () => {
      await registry.activate(workflow('wf-bg', { path: 'bg', httpMethod: 'POST' }));
      const gate = deferred();
      executor = async () => { await gate.promise; return { items: [] }; };
      const app = build({ responseTimeoutMs: 10 });
      await request(app).post(`${BASE}/webhook/bg`).expect(200, { message: 'Workflow was started' });
      // A later call cut at the same deadline: the first run's deadline, had it one, has passed too.
      await request(app).post(`${BASE}/webhook/slow`).expect(524);
      expect([runs[0]?.signal.aborted, runs[1]?.signal.aborted]).to.deep.equal([false, true]);
      gate.resolve();
    });

    it('aborts the signal when the caller disconnects before the answer', async () => {
      executor = (run) => new Promise((resolve) => { run.signal.addEventListener('abort', () => resolve({ items: [] })); });
      const server = await listen(build());
      try {
        const req = httpRequest({ host: '127.0.0.1', port: server.port, method: 'POST', path: `${BASE}/webhook/slow` });
        req.on('error', () => undefined);
        req.end();
        await eventually(() => runs.length === 1);
        req.destroy();
        await eventually(() => runs[0]?.signal.aborted === true);
        expect((runs[0]?.signal.reason as WebhookError).code).to.equal('BODY_ABORTED');
        const after = await sendTo(server.port, { method: 'GET', path: '/api/orders' });
        expect(after.status).to.equal(200);
      } finally {
        await server.close();
      }
    });
  });
}

describe('withDeadline', () => {
  const settings = { ms: 1000, status: 524 };
  const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('rejects with WORKFLOW_TIMEOUT when the deadline passes, not before, and tells onTimeout', async () => {
    await withFakeTimers(async (clock) => {
      const timeouts: WebhookError[] = [];
      const outcome = watched(withDeadline(new Promise(() => undefined), settings, { onStop: undefined }, (error) => timeouts.push(error)));
      await clock.tickAsync(999);
      expect([outcome.settled, timeouts.length], 'before the deadline').to.deep.equal([false, 0]);
      await clock.tickAsync(1);
      await turn();
      expect(timeouts).to.have.length(1);
      expect(outcome.error).to.equal(timeouts[0]);
      expect([(outcome.error as WebhookError).code, (outcome.error as WebhookError).status]).to.deep.equal(['WORKFLOW_TIMEOUT', 524]);
    });
  });

  it('has no deadline with 0 or Infinity', async () => {
    await withFakeTimers(async (clock) => {
      for (const ms of [0, Infinity]) {
        const timeouts: WebhookError[] = [];
        const outcome = watched(withDeadline(new Promise(() => undefined), { ms, status: 524 }, { onStop: undefined }, (error) => timeouts.push(error)));
        await clock.tickAsync(24 * 60 * 60 * 1000);
        await turn();
        expect([outcome.settled, timeouts.length], String(ms)).to.deep.equal([false, 0]);
      }
    });
  });

  it('once the work answered in time: no timeout later, and a stop no longer reaches it', async () => {
    await withFakeTimers(async (clock) => {
      const timeouts: WebhookError[] = [];
      const slot: StopSlot = { onStop: undefined };
      const work = deferred<string>();
      const outcome = watched(withDeadline(work.promise, settings, slot, (error) => timeouts.push(error)));
      expect(slot.onStop).to.be.a('function');
      work.resolve('answer');
      await turn();
      expect(outcome.value).to.equal('answer');
      expect(slot.onStop).to.equal(undefined);
      await clock.tickAsync(5000);
      expect(timeouts).to.deep.equal([]);
    });
  });

  it('rejects with the middleware\'s reason when it stops the call, and then times out no more', async () => {
    await withFakeTimers(async (clock) => {
      const timeouts: WebhookError[] = [];
      const slot: StopSlot = { onStop: undefined };
      const outcome = watched(withDeadline(new Promise(() => undefined), settings, slot, (error) => timeouts.push(error)));
      const reason = new WebhookErrorClass('SHUTTING_DOWN', 'stopped');
      slot.onStop?.(reason);
      await turn();
      expect(outcome.error).to.equal(reason);
      expect(slot.onStop).to.equal(undefined);
      await clock.tickAsync(5000);
      expect(timeouts).to.deep.equal([]);
    });
  });
});
