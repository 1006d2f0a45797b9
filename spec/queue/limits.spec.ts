import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry, type WorkflowSettings } from 'workflow-webhooks';
import { BASE, eventually } from '../support/queue/setup.js';
import { queueStores } from '../support/queue/stores.js';

/** A workflow's settings.concurrency and maxQueued hold across every worker of the queue. */
for (const store of queueStores('queue mode: per-workflow limits')) {
  describe(`queue mode: per-workflow limits on ${store.name}`, function () {
    this.timeout(30_000);
    const setup = store.setup();

    async function activated(settings: WorkflowSettings): Promise<MemoryWebhookRegistry> {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'limited', nodes: [{ name: 'Webhook', parameters: { path: 'work', httpMethod: 'POST' } }], settings });
      return registry;
    }

    it('never runs more than settings.concurrency runs of a workflow at once, across three workers of concurrency 5', async () => {
      let now = 0;
      let most = 0;
      let done = 0;
      const executor = async (): Promise<{ items: [] }> => {
        now += 1;
        most = Math.max(most, now);
        await new Promise((resolve) => setTimeout(resolve, 150));
        now -= 1;
        done += 1;
        return { items: [] };
      };
      const queue = setup.queue();
      const workers = Array.from({ length: 3 }, () => setup.worker(executor, { concurrency: 5 }));
      const app = setup.app(await activated({ concurrency: 2 }), queue);
      // Connected first: what is measured is the limit across workers, not how fast a client finds its server.
      await Promise.all([queue.ready(), ...workers.map((worker) => worker.ready())]);
      const calls = Array.from({ length: 20 }, (_, i) => request(app).post(`${BASE}/webhook/work`).send({ i }));
      for (const res of await Promise.all(calls)) expect(res.status, JSON.stringify(res.body)).to.equal(200);
      await eventually(() => done === 20, 20_000);
      expect(most).to.equal(2);
    });

    it('answers 429 TOO_MANY_RUNS with Retry-After once settings.maxQueued runs wait, and takes calls again when they have run', async () => {
      const queue = setup.queue({ retryAfterSeconds: 3 });
      const app = setup.app(await activated({ maxQueued: 3 }), queue);
      for (let i = 0; i < 3; i += 1) await request(app).post(`${BASE}/webhook/work`).send({ i }).expect(200);
      const refused = await request(app).post(`${BASE}/webhook/work`).send({ i: 3 }).expect(429);
      expect(refused.body.code).to.equal('TOO_MANY_RUNS');
      expect(refused.body.message).to.include('3 runs waiting');
      expect(refused.headers['retry-after']).to.equal('3');
      let ran = 0;
      setup.worker(async () => { ran += 1; return { items: [] }; });
      await eventually(() => ran === 3);
      await eventually(async () => (await request(app).post(`${BASE}/webhook/work`).send({ i: 4 })).status === 200);
    });

    it('counts only waiting runs against maxQueued, not those a worker is running', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => { release = resolve; });
      let started = 0;
      setup.worker(async () => { started += 1; await gate; return { items: [] }; }, { concurrency: 5 });
      const app = setup.app(await activated({ maxQueued: 1 }), setup.queue());
      await request(app).post(`${BASE}/webhook/work`).send({ i: 0 }).expect(200);
      await eventually(() => started === 1);
      await request(app).post(`${BASE}/webhook/work`).send({ i: 1 }).expect(200);
      await eventually(() => started === 2);
      release();
    });
  });
}
