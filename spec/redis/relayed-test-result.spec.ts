/**
 * A test listen's result whose call ran on another instance is data that can be sent on: two Express apps, each
 * with its middleware and its own RedisWebhookRegistry on one redis-server; the listen is held by A, the call made
 * on B. The result goes through `JSON.stringify()` and through `res.json()` of an Express route on A.
 */
import { expect } from 'chai';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';
import { createWebhookMiddleware, type TestListenResult, type WorkflowWebhooks } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { eventually } from '../support/registry-contract/instances.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll, eachOf } from '../support/close-all.js';

const SIGNUP: WorkflowWebhooks = {
  workflowId: 'signup',
  workflowName: 'Sign-up',
  nodes: [{ name: 'Webhook', parameters: { path: 'signup', httpMethod: 'POST', responseMode: 'lastNode' } }],
};

/** Where `value` holds more than JSON's data: an accessor, a function, undefined, or an object not plain. */
function notPlain(value: unknown, path: string): string[] {
  if (value === null || ['string', 'boolean'].includes(typeof value) || Number.isFinite(value)) return [];
  if (typeof value !== 'object') return [`${path}: ${typeof value}`];
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) return [`${path}: not a plain object or array`];
  return Object.entries(Object.getOwnPropertyDescriptors(value)).flatMap(([key, descriptor]) => {
    if (Array.isArray(value) && key === 'length') return [];
    return 'value' in descriptor ? notPlain(descriptor.value, `${path}.${key}`) : [`${path}.${key}: an accessor`];
  });
}

interface Instance { registry: RedisWebhookRegistry; server: Server; url: string; stop(): Promise<void> }

if (findService(REDIS) === undefined) {
  markNotRun('a test result relayed from another instance', REDIS);
} else {
  describe('a test listen\'s result relayed from another instance (RedisWebhookRegistry)', function () {
    this.timeout(20_000);
    let redis: RedisServer;
    let instances: Instance[] = [];
    /** What A's listen route's handle resolved, as the route got it. */
    let heard: TestListenResult | undefined;

    async function instance(prefix: string): Promise<Instance> {
      const client = createClient({ url: redis.url });
      client.on('error', () => undefined);
      const registry = new RedisWebhookRegistry({ client, prefix, onEvent: () => undefined });
      await registry.ready();
      const middleware = createWebhookMiddleware(registry, (run) => ({ items: [{ json: { got: run.items[0]?.json.body ?? null } }] }));
      const app = express();
      app.use('/api/automation', middleware);
      // An editor's "listen for a test event", as a host would write it: wait for the call, answer its result.
      app.post('/listen', async (_req, res) => {
        const handle = await registry.listenForTest(SIGNUP, { timeoutMs: 10_000 });
        heard = await handle.result;
        res.json(heard);
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      return {
        registry, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        stop: async () => {
          await middleware.close();
          await registry.close();
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
          client.destroy();
        },
      };
    }

    before(async () => { redis = await RedisServer.start() as RedisServer; });
    after(async () => { await redis?.stop(); });
    beforeEach(async () => {
      heard = undefined;
      const prefix = `relayed-${Date.now()}:`;
      instances = [await instance(prefix), await instance(prefix)];
    });
    afterEach(() => closeAll(...eachOf(instances.splice(0), (each) => each.stop())));

    it('is plain data: JSON.stringify() and res.json() write the run with its item and the output', async () => {
      const [a, b] = instances as [Instance, Instance];
      const listened = fetch(`${a.url}/listen`, { method: 'POST' });
      await eventually(async () => (await b.registry.lookup('test', 'POST', 'signup')).found, 5000);
      const call = await fetch(`${b.url}/api/automation/webhook-test/signup?source=b`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ada' }),
      });
      expect([call.status, await call.json()]).to.deep.equal([200, { got: { name: 'Ada' } }]);

      const answer = await listened;
      expect(answer.status).to.equal(200);
      const sent = await answer.json() as { status: string; run: { items: { json: Record<string, unknown> }[]; workflowId: string }; output: unknown };
      expect(sent.status).to.equal('received');
      expect(sent.run.workflowId).to.equal('signup');
      expect(sent.run.items[0]?.json).to.deep.include({ body: { name: 'Ada' }, query: { source: 'b' }, executionMode: 'test' });
      expect(sent.output).to.deep.equal({ items: [{ json: { got: { name: 'Ada' } } }] });

      // The result as the route had it: only the run's data came from B, nothing that acts or throws here. Its
      // JSON would drop a getter, a method or a class of its own, so the value itself is looked at.
      const result = heard as TestListenResult;
      expect(notPlain(result, 'result')).to.deep.equal([]);
      expect(result).to.deep.equal(sent);
      expect(result.status === 'received' && Object.keys(result.run).sort()).to.deep.equal(
        ['callId', 'items', 'method', 'mode', 'nodeName', 'outputIndex', 'workflowId', 'workflowName']);
    });
  });
}
