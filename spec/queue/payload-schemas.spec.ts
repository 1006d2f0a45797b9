/**
 * Queue mode: the web instance checks a call against its webhook's payload schema before it stores a job, so a call
 * that does not match is answered 422 and never stored (nor run by a worker), on a real BullMQ queue on a real
 * redis-server; one that matches is stored with what passed (the coerced form values).
 */
import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookEvent } from 'workflow-webhooks';
import { BASE, eventually, queueSetup } from '../support/queue/setup.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { ORDER_JSON_SCHEMA, ORDER_ZOD } from '../support/payload-schemas.js';

if (findService(REDIS) === undefined) {
  markNotRun('queue mode: payload schemas', REDIS);
} else {
  describe('queue mode: payload schemas', function () {
    this.timeout(30_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });
    const setup = queueSetup(() => server);

    for (const [name, body] of [['a JSON Schema', ORDER_JSON_SCHEMA], ['a zod schema', 'order']] as const) {
      it(`stores only the calls that match ${name}: 2 of 5 become jobs, 3 are answered 422 and never stored or run`, async () => {
        const registry = new MemoryWebhookRegistry();
        await registry.activate({
          workflowId: 'checked', nodes: [{ name: 'Webhook', parameters: { path: 'order', httpMethod: 'POST' } }],
          schemas: { Webhook: { body } },
        });
        const events: WebhookEvent[] = [];
        const app = setup.app(registry, setup.queue(), { schemas: { order: ORDER_ZOD }, onEvent: (event) => events.push(event) });
        const calls = [
          request(app).post(`${BASE}/webhook/order`).send({ name: 'Tea', qty: 1 }),
          request(app).post(`${BASE}/webhook/order`).type('form').send('name=Cake&qty=2'),
          request(app).post(`${BASE}/webhook/order`).send({ name: 'tea', qty: 1 }),
          request(app).post(`${BASE}/webhook/order`).send({ qty: 1 }),
          request(app).post(`${BASE}/webhook/order`).type('form').send('name=Tea&qty=none'),
        ];
        const answers = await Promise.all(calls);
        expect(answers.map((res) => res.status)).to.deep.equal([200, 200, 422, 422, 422]);
        expect(events.filter((event) => event.type === 'enqueued')).to.have.length(2);
        expect(await setup.send(['LLEN', `${setup.prefix}:${setup.name}:wait`])).to.equal(2);
        const bodies: unknown[] = [];
        setup.worker(async (run) => { bodies.push(run.items[0]?.json.body); return { items: [] }; });
        await eventually(() => bodies.length === 2);
        expect(bodies).to.have.deep.members([{ name: 'Tea', qty: 1 }, { name: 'Cake', qty: 2 }]);
      });
    }
  });
}
