/**
 * Queue mode: a rate-limited address refuses a call before it reaches the queue executor, so a refused call is never
 * stored as a job (nor run by a worker), on a real BullMQ queue on a real redis-server.
 */
import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookEvent } from 'workflow-webhooks';
import { BASE, eventually, queueSetup } from '../support/queue/setup.js';
import { queueDrained } from '../support/queue-drained.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';

if (findService(REDIS) === undefined) {
  markNotRun('queue mode: rate limits', REDIS);
} else {
  describe('queue mode: rate limits', function () {
    this.timeout(30_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });
    const setup = queueSetup(() => server);

    it('stores only the calls the limit lets through: 5 of 12 become jobs, 7 are answered 429 and never stored or run', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({
        workflowId: 'limited', nodes: [{ name: 'Webhook', parameters: { path: 'work', httpMethod: 'POST' } }],
        settings: { rateLimit: { limit: 5, windowMs: 60_000 } },
      });
      const events: WebhookEvent[] = [];
      const queue = setup.queue();
      const app = setup.app(registry, queue, { onEvent: (event) => events.push(event) });
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => request(app).post(`${BASE}/webhook/work`).send({ i })));
      expect(answers.map((res) => res.status).sort()).to.deep.equal([...Array(5).fill(200), ...Array(7).fill(429)]);
      for (const res of answers.filter((one) => one.status === 429)) {
        expect([res.body.code, res.headers['retry-after'], res.headers.ratelimit]).to.deep.equal(['RATE_LIMITED', '60', '"address-60s";r=0;t=60']);
      }
      expect(events.filter((event) => event.type === 'enqueued')).to.have.length(5);
      expect(await setup.send(['LLEN', `${setup.prefix}:${setup.name}:wait`])).to.equal(5);
      let ran = 0;
      setup.worker(async () => { ran += 1; return { items: [] }; });
      await eventually(() => ran === 5);
      // Nothing left in the queue to run: five runs is final.
      await queueDrained(queue);
      expect(ran).to.equal(5);
    });
  });
}
