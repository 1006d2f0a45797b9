import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  WebhookConflictError,
  type TestListenEvent,
  type WebhookExecutor,
  type WebhookRun,
} from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { deferred, workflow } from '../../support/workflows.js';

for (const host of HOSTS) {
  describe(`test webhooks in ${host.name}`, () => {
    let registry: MemoryWebhookRegistry;
    let runs: WebhookRun[];
    let executor: WebhookExecutor;
    let app: ReturnType<(typeof HOSTS)[number]['build']>;
    const hook = workflow('wf', { path: 'signup', httpMethod: 'POST', responseMode: 'lastNode' }, { workflowName: 'Signup' });

    beforeEach(() => {
      registry = new MemoryWebhookRegistry();
      runs = [];
      executor = async (run) => ({ items: [{ json: { echoed: run.items[0]?.json.body } }] });
      app = host.build(createWebhookMiddleware(registry, (run) => { runs.push(run); return executor(run); }, { onWorkflowError: () => undefined }));
    });

    it('accepts one call while listening, runs it in test mode and hands its data to the listener', async () => {
      const handle = await registry.listenForTest(hook);
      expect(handle.expiresAt).to.be.closeTo(Date.now() + 120_000, 1000);
      const res = await request(app).post(`${BASE}/webhook-test/signup`).send({ name: 'Ada' }).expect(200);
      expect(res.body).to.deep.equal({ echoed: { name: 'Ada' } });
      const result = await handle.result;
      expect(result.status).to.equal('received');
      if (result.status !== 'received') return;
      expect(result.run).to.include({ mode: 'test', workflowId: 'wf' });
      expect(result.run.items[0]?.json).to.include({ executionMode: 'test' });
      expect(result.run.items[0]?.json.webhookUrl).to.match(/\/api\/automation\/webhook-test\/signup$/);
      expect(result.output).to.deep.equal({ items: [{ json: { echoed: { name: 'Ada' } } }] });
    });

    it('answers a second call with 404 saying the one test call was used', async () => {
      await registry.listenForTest(hook);
      await request(app).post(`${BASE}/webhook-test/signup`).expect(200);
      const res = await request(app).post(`${BASE}/webhook-test/signup`).expect(404);
      expect(res.body.code).to.equal('WEBHOOK_TEST_NOT_LISTENING');
      expect(res.body.message).to.equal('The test webhook "POST signup" is not listening. It already received its one test call.');
      expect(res.body.hint).to.match(/Listen for test event/).and.match(/one call/);
    });

    it('says nothing listens on an address that never listened', async () => {
      const res = await request(app).post(`${BASE}/webhook-test/signup`).expect(404);
      expect(res.body.message).to.match(/Nothing is listening for a test event on it\.$/);
    });

    it('ends with timedOut after the window and then answers 404 saying the window ended', async () => {
      const handle = await registry.listenForTest(hook, { timeoutMs: 30 });
      expect(await handle.result).to.deep.equal({ status: 'timedOut' });
      const res = await request(app).post(`${BASE}/webhook-test/signup`).expect(404);
      expect(res.body.message).to.match(/Its listening window ended before a call arrived\.$/);
      expect(runs).to.have.length(0);
    });

    it('stops listening at once on cancel()', async () => {
      const handle = await registry.listenForTest(hook);
      await handle.cancel();
      expect(await handle.result).to.deep.equal({ status: 'cancelled', reason: 'cancelled' });
      const res = await request(app).post(`${BASE}/webhook-test/signup`).expect(404);
      expect(res.body.message).to.match(/was cancelled\.$/);
    });

    it('keeps production and test apart', async () => {
      await registry.activate(hook);
      const handle = await registry.listenForTest(hook);
      await request(app).post(`${BASE}/webhook/signup`).send({ p: 1 }).expect(200);
      expect(runs.map((run) => run.mode)).to.deep.equal(['production']);
      await request(app).post(`${BASE}/webhook-test/signup`).send({ t: 1 }).expect(200);
      expect(runs.map((run) => run.mode)).to.deep.equal(['production', 'test']);
      expect((await handle.result).status).to.equal('received');
      await request(app).post(`${BASE}/webhook/signup`).expect(200);
      await registry.deactivate('wf');
      await registry.listenForTest(hook);
      await request(app).post(`${BASE}/webhook-test/signup`).expect(200);
    });

    it('refuses a second workflow listening on the same path and method, and lets the same one listen again', async () => {
      const first = await registry.listenForTest(hook);
      try {
        await registry.listenForTest(workflow('other', { path: 'signup', httpMethod: 'POST' }));
        expect.fail('a conflict was expected');
      } catch (error) {
        expect(error).to.be.instanceOf(WebhookConflictError);
        expect((error as Error).message).to.include('workflow "Signup" (wf)');
      }
      const second = await registry.listenForTest(hook);
      expect(await first.result).to.deep.equal({ status: 'cancelled', reason: 'replaced' });
      await request(app).post(`${BASE}/webhook-test/signup`).expect(200);
      expect((await second.result).status).to.equal('received');
    });

    it('runs exactly one of 20 concurrent calls; the others get the not-listening answer', async () => {
      const gate = deferred();
      executor = async () => { await gate.promise; return { items: [{ json: { ok: true } }] }; };
      const handle = await registry.listenForTest(hook);
      const calls = Array.from({ length: 20 }, () => request(app).post(`${BASE}/webhook-test/signup`).send({}).then((res) => res));
      setTimeout(() => gate.resolve(), 50);
      const statuses = (await Promise.all(calls)).map((res) => res.status).sort();
      expect(statuses).to.deep.equal([200, ...Array<number>(19).fill(404)]);
      expect(runs).to.have.length(1);
      expect((await handle.result).status).to.equal('received');
    });

    it('does not use up the listen on a call rejected before the workflow starts', async () => {
      const handle = await registry.listenForTest(hook);
      await request(app).post(`${BASE}/webhook-test/signup`).set('content-type', 'application/json').send('{broken').expect(400);
      await request(app).get(`${BASE}/webhook-test/signup`).expect(405);
      await request(app).post(`${BASE}/webhook-test/signup`).send({ ok: 1 }).expect(200);
      expect((await handle.result).status).to.equal('received');
    });

    it('serves multi-method outputs and dynamic paths on the test address', async () => {
      await registry.listenForTest(workflow('wf-m', { path: 'users/:id', multipleMethods: true, httpMethod: ['GET', 'PUT'], responseMode: 'lastNode' }));
      await request(app).put(`${BASE}/webhook-test/users/7`).expect(200);
      expect(runs[0]).to.include({ method: 'PUT', outputIndex: 1 });
      expect(runs[0]?.items[0]?.json.params).to.deep.equal({ id: '7' });
    });

    it('tells the listener when listening starts, a call arrives, it completes and the window ends', async () => {
      const seen: TestListenEvent[] = [];
      const handle = await registry.listenForTest(hook, { onEvent: (event) => seen.push(event) });
      await request(app).post(`${BASE}/webhook-test/signup`).send({}).expect(200);
      await handle.result;
      expect(seen.map((event) => event.type)).to.deep.equal(['listening', 'callArrived', 'completed', 'ended']);
      expect(seen[0]).to.include({ listenId: handle.listenId, workflowId: 'wf', expiresAt: handle.expiresAt });
    });

    it('tells the listener when the workflow fails, and delivers the error', async () => {
      executor = async () => { throw new Error('broken step'); };
      const seen: string[] = [];
      const handle = await registry.listenForTest(hook, { onEvent: (event) => seen.push(event.type) });
      await request(app).post(`${BASE}/webhook-test/signup`).send({}).expect(500);
      const result = await handle.result;
      expect(result.status === 'received' && result.error).to.have.property('code', 'WORKFLOW_FAILED');
      expect(seen).to.deep.equal(['listening', 'callArrived', 'failed', 'ended']);
    });

    it('delivers the hints a run returns next to its items', async () => {
      executor = async () => ({ items: [{ json: {} }], hints: [{ message: 'Only the first 100 rows were read', location: 'outputPane' }] });
      const handle = await registry.listenForTest(hook);
      await request(app).post(`${BASE}/webhook-test/signup`).send({}).expect(200);
      const result = await handle.result;
      expect(result.status === 'received' && result.output?.hints).to.deep.equal([{ message: 'Only the first 100 rows were read', location: 'outputPane' }]);
      executor = async () => ({ items: [], hints: ['not a hint'] }) as never;
      await registry.listenForTest(hook);
      const res = await request(app).post(`${BASE}/webhook-test/signup`).send({}).expect(500);
      expect(res.body.code).to.equal('WORKFLOW_INVALID_RESULT');
    });

    it('refuses a timeout that is not a positive number', async () => {
      for (const timeoutMs of [0, -1, Number.NaN, 'soon']) {
        try {
          await registry.listenForTest(hook, { timeoutMs: timeoutMs as number });
          expect.fail(`timeoutMs ${String(timeoutMs)} should be refused`);
        } catch (error) {
          expect(error).to.be.instanceOf(TypeError);
        }
      }
    });
  });
}
