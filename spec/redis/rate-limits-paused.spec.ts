/**
 * Rate limits of two instances while their redis-server is paused (SIGSTOP: it takes connections and answers
 * nothing), with `storeFailure: 'local'`: together they let at most instances × limit through per window, counting
 * the calls they let through before the pause, and once the pause is noticed no call waits for Redis again; when
 * Redis answers again it counts for both.
 */
import { expect } from 'chai';
import { request } from 'node:http';
import { createClient } from 'redis';
import { createWebhookMiddleware, type WorkflowWebhooks } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { eventually } from '../support/registry-contract/instances.js';
import { listen } from '../support/raw-http.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';

/** How long a Redis command may take here before it fails. */
const COMMAND_TIMEOUT_MS = 2500;

/** A call's status and how long it took, in ms. */
function call(url: string, method = 'POST'): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const orders: WorkflowWebhooks = {
  workflowId: 'orders',
  nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }],
  settings: { rateLimit: { limit: 10, windowMs: 600_000 } },
};

if (findService(REDIS) === undefined) {
  markNotRun('rate limits of two instances while Redis is paused', REDIS);
} else {
  describe('rate limits of two instances while their redis-server is paused', function () {
    this.timeout(60_000);

    it('let at most 2 × the limit through in the window, the calls before the pause included, make no call wait after the first, and hand the count back to Redis', async () => {
      const server = await RedisServer.start() as RedisServer;
      const warnings: string[] = [];
      const parts = await Promise.all([0, 1].map(async () => {
        const client = createClient({ url: server.url });
        client.on('error', () => undefined);
        const registry = new RedisWebhookRegistry({ client, prefix: `paused-${process.pid}:`, commandTimeoutMs: COMMAND_TIMEOUT_MS, onEvent: () => undefined });
        await registry.ready();
        const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), {
          logger: { warn: (_fields, message) => warnings.push(String(message)), error: () => undefined },
        });
        const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
        return { client, registry, running, url: `http://127.0.0.1:${running.port}/webhook/orders` };
      }));
      const urls = parts.map((part) => part.url);
      try {
        await parts[0]?.registry.activate(orders);
        for (const url of urls) await eventually(async () => (await call(url, 'GET')).status === 405, 3000);
        // Redis counts the first 10, five through each instance.
        const before = [];
        for (let index = 0; index < 10; index += 1) before.push((await call(urls[index % 2] as string)).status);
        expect(before).to.deep.equal(Array.from({ length: 10 }, () => 200));

        server.pause();
        // The first call of each instance finds Redis silent: it waits for the command timeout, then is counted here.
        const noticed = await Promise.all(urls.map((url) => call(url)));
        // Past the second after which a store that failed was tried again, two bursts of ten calls to each.
        const bursts = [];
        for (let round = 0; round < 2; round += 1) {
          await sleep(1200);
          bursts.push(...(await Promise.all(urls.flatMap((url) => Array.from({ length: 10 }, () => call(url))))));
        }
        const through = [...noticed, ...bursts].filter((answer) => answer.status === 200).length;
        expect(10 + through, 'calls through in the window, of a limit of 10 on 2 instances').to.equal(20);
        expect([...noticed, ...bursts].filter((answer) => answer.status !== 200 && answer.status !== 429)).to.deep.equal([]);
        // A call answered without Redis takes milliseconds; one that waited for the paused Redis took the command timeout.
        const waited = bursts.filter((answer) => answer.ms >= COMMAND_TIMEOUT_MS - 100).length;
        expect(waited, 'calls of the bursts that waited for the paused Redis').to.equal(0);
        expect(warnings.filter((message) => message.includes('each instance counts its own calls'))).to.have.length(2);

        server.resume();
        await eventually(async () => {
          await Promise.all(urls.map((url) => call(url)));
          return warnings.filter((message) => message.startsWith('workflow-webhooks: the registry counts rate limits again')).length === 2;
        }, 10_000);
      } finally {
        server.resume();
        for (const part of parts) {
          await part.registry.close();
          await part.running.close();
          part.client.destroy();
        }
        await server.stop();
      }
    });
  });
}
