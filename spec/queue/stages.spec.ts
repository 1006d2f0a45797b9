import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import type { QueueCallStages } from 'workflow-webhooks/queue';
import { BASE, eventually, queueSetup } from '../support/queue/setup.js';
import { RedisServer, REDIS } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';

/** Option stageTimes: a waiting call's stages through the queue, timed by the web instance and the worker. */
if (findService(REDIS) === undefined) {
  markNotRun('queue mode: stage times', REDIS);
} else {
  describe('queue mode: stage times of a waiting call', function () {
    this.timeout(20_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });
    const setup = queueSetup(() => server);

    async function app(stageTimes?: (stages: QueueCallStages) => void) {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'timed', nodes: [{ name: 'Webhook', parameters: { path: 'timed', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      const queue = setup.queue(stageTimes === undefined ? {} : { stageTimes });
      setup.worker(async (run) => ({ items: [{ json: { jobId: run.jobId } }] }));
      return { queue, app: setup.app(registry, queue) };
    }

    it('tells once per answered call when its job was stored, taken, run and replied to, and when the reply was read', async () => {
      const heard: QueueCallStages[] = [];
      const { app: served } = await app((stages) => { heard.push(stages); });
      const from = Date.now();
      const res = await request(served).post(`${BASE}/webhook/timed`).set('x-request-id', 'call-1').send({}).expect(200);
      const to = Date.now();
      await eventually(() => heard.length === 1);
      const [stages] = heard as [QueueCallStages];
      expect(stages).to.include({ callId: 'call-1', jobId: res.body.jobId });
      // Times of this machine's clock, each within the call (a second either way for rounding and clock steps).
      for (const name of ['storing', 'stored', 'processedOn', 'taken', 'finished', 'published', 'seen'] as const) {
        expect(stages[name], name).to.be.within(from - 1000, to + 1000);
      }
      // In order within each process (between processes only the clocks' agreement would be tested).
      expect(stages.stored).to.be.at.least(stages.storing);
      expect(stages.finished).to.be.at.least(stages.taken);
      expect(stages.published).to.be.at.least(stages.finished);
    });

    it('asks a job for no times without the option, and a listener that throws leaves the call answered', async () => {
      const plain = await app();
      const res = await request(plain.app).post(`${BASE}/webhook/timed`).send({}).expect(200);
      expect((await plain.queue.status(res.body.jobId))?.data.stamps).to.equal(undefined);
      const throwing = await app(() => { throw new Error('a broken listener'); });
      const answered = await request(throwing.app).post(`${BASE}/webhook/timed`).send({}).expect(200);
      expect((await throwing.queue.status(answered.body.jobId))?.data.stamps).to.equal(true);
    });
  });
}
