/**
 * Whose call an idempotency key repeats: a key holds within one workflow node, method, path parameters, query and the
 * caller the node's guard verified (a JWT's subject), as a payment API holds a key within one account. Another query,
 * another `:id`, another method or another subject with the same key and body is a call of its own, and a key someone
 * else used first neither answers the owner with their answer nor refuses the owner's call 422. Over HTTP, queue
 * mode on a real redis-server.
 */
import { expect } from 'chai';
import { SignJWT } from 'jose';
import request from 'supertest';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import type { QueuedWebhookRun } from 'workflow-webhooks/queue';
import { BASE, queueSetup } from '../support/queue/setup.js';
import { RedisServer, REDIS } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';

const bearer = async (sub: string): Promise<string> =>
  `Bearer ${await new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(new TextEncoder().encode(SECRET))}`;

if (findService(REDIS) === undefined) {
  markNotRun('queue mode: the scope of an idempotency key', REDIS);
} else {
  describe('queue mode: the scope of an idempotency key', function () {
    this.timeout(20_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });
    const setup = queueSetup(() => server);

    async function serve() {
      const runs: QueuedWebhookRun[] = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate({
        workflowId: 'orders',
        nodes: [{ name: 'Webhook', parameters: { path: 'orders/:id', multipleMethods: true, httpMethod: ['POST', 'PUT'], authentication: 'jwtAuth', responseMode: 'lastNode' } }],
        settings: { idempotencyHeader: true },
      });
      setup.worker(async (run) => {
        runs.push(run);
        return { items: [{ json: { run: runs.length } }] };
      });
      const app = setup.app(registry, setup.queue(), { credentials: () => ({ keyType: 'passphrase', secret: SECRET }) });
      const call = async (sub: string, path: string, key: string, body: object, method: 'post' | 'put' = 'post') =>
        request(app)[method](`${BASE}/webhook/${path}`).set('authorization', await bearer(sub)).set('idempotency-key', key).send(body);
      return { runs, call };
    }

    it('runs a call with the same key and body again for another query, :id, method or JWT subject, and answers a true retry as the first', async () => {
      const { runs, call } = await serve();
      const first = await call('alice', 'orders/1?currency=eur&dry=0', 'k-1', { amount: 10 });
      expect([first.status, first.body]).to.deep.equal([200, { run: 1 }]);
      const others = [
        await call('alice', 'orders/1?currency=usd&dry=0', 'k-1', { amount: 10 }),
        await call('alice', 'orders/2?currency=eur&dry=0', 'k-1', { amount: 10 }),
        await call('alice', 'orders/1?currency=eur&dry=0', 'k-1', { amount: 10 }, 'put'),
        await call('bob', 'orders/1?currency=eur&dry=0', 'k-1', { amount: 10 }),
      ];
      expect(others.map((answer) => [answer.status, answer.body])).to.deep.equal([[200, { run: 2 }], [200, { run: 3 }], [200, { run: 4 }], [200, { run: 5 }]]);
      // The same caller's retry, with a new token of the same subject and the query in another order, is a repeat.
      const retry = await call('alice', 'orders/1?dry=0&currency=eur', 'k-1', { amount: 10 });
      expect([retry.status, retry.body]).to.deep.equal([200, { run: 1 }]);
      expect(runs).to.have.length(5);
    });

    it('takes the owner\'s call with its own body when another caller used its key first, and refuses only the owner\'s own reuse 422', async () => {
      const { runs, call } = await serve();
      const squatter = await call('mallory', 'orders/7', 'order-7-payment', { amount: 1 });
      expect(squatter.status).to.equal(200);
      const owner = await call('alice', 'orders/7', 'order-7-payment', { amount: 250 });
      expect([owner.status, owner.body]).to.deep.equal([200, { run: 2 }]);
      expect(runs.map((run) => run.items[0]?.json.body)).to.deep.equal([{ amount: 1 }, { amount: 250 }]);
      const reused = await call('alice', 'orders/7', 'order-7-payment', { amount: 999 });
      expect([reused.status, reused.body.code]).to.deep.equal([422, 'IDEMPOTENCY_KEY_REUSED']);
    });
  });
}
