/**
 * A JSON Schema travels with its workflow through Redis: activated on one instance, every other instance compiles it
 * from the stored workflow and refuses a call that does not match (422), on a real redis-server.
 */
import { expect } from 'chai';
import { createClient } from 'redis';
import request from 'supertest';
import { createWebhookMiddleware } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { BASE, HOSTS } from '../support/apps.js';
import { ORDER_JSON_SCHEMA } from '../support/payload-schemas.js';
import { eventually } from '../support/registry-contract/instances.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll } from '../support/close-all.js';

if (findService(REDIS) === undefined) {
  markNotRun('payload schemas through the Redis registry', REDIS);
} else {
  describe('payload schemas through the Redis registry', function () {
    this.timeout(20_000);
    let server: RedisServer;
    const opened: { registry: RedisWebhookRegistry; client: { destroy(): unknown } }[] = [];
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(() => closeAll(...opened.splice(0).flatMap(({ registry, client }) => [() => registry.close(), () => client.destroy()]), () => server?.stop()));

    function instance(): RedisWebhookRegistry {
      const client = createClient({ url: `redis://127.0.0.1:${server.port}` });
      client.on('error', () => undefined);
      const registry = new RedisWebhookRegistry({ client, prefix: 'schemas:', onEvent: () => undefined });
      opened.push({ registry, client });
      return registry;
    }

    it('refuses on another instance a call that does not match the schema activated on the first', async () => {
      const [first, second] = [instance(), instance()];
      await Promise.all([first.ready(), second.ready()]);
      await first.activate({
        workflowId: 'orders', nodes: [{ name: 'Order', parameters: { path: 'order', httpMethod: 'POST' } }],
        schemas: { Order: { body: ORDER_JSON_SCHEMA } },
      });
      const app = (HOSTS[0] as (typeof HOSTS)[number]).build(createWebhookMiddleware(second, () => ({ items: [] })));
      await eventually(async () => (await request(app).get(`${BASE}/webhook/order`)).status === 405, 5000);
      const refused = await request(app).post(`${BASE}/webhook/order`).send({ name: 'Tea', qty: 'two' }).expect(422);
      expect(refused.body.errors).to.deep.equal([{ path: '/body/qty', message: 'must be integer' }]);
      await request(app).post(`${BASE}/webhook/order`).send({ name: 'Tea', qty: 2 }).expect(200);
    });
  });
}
