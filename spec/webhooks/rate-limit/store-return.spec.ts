/**
 * A shared store that stops answering and comes back, on Redis (paused, SIGSTOP) and on PostgreSQL (frozen: the
 * server and its backends SIGSTOPped): two instances count alone meanwhile, and once the store answers again the calls
 * they let through alone are added to its count, so that in the window they let through at most 2 × the limit in all,
 * not that plus the store's own count once more.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { createClient } from 'redis';
import { createWebhookMiddleware, type WebhookRegistry, type WorkflowWebhooks } from 'workflow-webhooks';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { eventually } from '../../support/registry-contract/instances.js';
import { listen } from '../../support/raw-http.js';
import { POSTGRES, PostgresServer } from '../../support/postgres-server.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun, type Service } from '../../support/services.js';

const LIMIT = 20;
/** How long a store's command may take here before it fails. */
const COMMAND_TIMEOUT_MS = 1000;

const orders: WorkflowWebhooks = {
  workflowId: 'orders',
  nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }],
  settings: { rateLimit: { limit: LIMIT, windowMs: 600_000 } },
};

/** A store that can stop answering: its registries for one instance each, and how to stop and resume it. */
interface HeldStore {
  registry(instance: number): { registry: WebhookRegistry & { ready(): Promise<void> }; close(): Promise<void> };
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try { process.kill(pid, name); } catch { /* gone meanwhile */ }
  }
}

const STORES: ReadonlyArray<{ name: string; service: Service; open(): Promise<HeldStore> }> = [
  {
    name: 'Redis',
    service: REDIS,
    async open() {
      const server = await RedisServer.start() as RedisServer;
      return {
        registry() {
          const client = createClient({ url: server.url });
          client.on('error', () => undefined);
          const registry = new RedisWebhookRegistry({ client, prefix: `return-${process.pid}:`, commandTimeoutMs: COMMAND_TIMEOUT_MS, onEvent: () => undefined });
          return { registry, close: async () => { await registry.close(); client.destroy(); } };
        },
        freeze: () => server.pause(),
        thaw: () => server.resume(),
        stop: () => server.stop(),
      };
    },
  },
  {
    name: 'PostgreSQL',
    service: POSTGRES,
    async open() {
      const server = await PostgresServer.start() as PostgresServer;
      let frozen: number[] = [];
      return {
        registry() {
          const registry = new PostgresWebhookRegistry({ connectionString: server.url, schema: `return_${process.pid}`, commandTimeoutMs: COMMAND_TIMEOUT_MS, onEvent: () => undefined });
          return { registry, close: () => registry.close() };
        },
        freeze() {
          // The postmaster first (it forks no backend meanwhile), then its backends.
          frozen = [server.pid];
          signal(frozen, 'SIGSTOP');
          const backends = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.pid)], { encoding: 'utf8' }).split('\n').filter((pid) => pid.trim() !== '').map(Number);
          frozen.push(...backends);
          signal(backends, 'SIGSTOP');
        },
        thaw() {
          signal(frozen, 'SIGCONT');
          frozen = [];
        },
        stop: () => server.stop(),
      };
    },
  },
];

function call(url: string, method = 'POST'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}

for (const store of STORES) {
  if (findService(store.service) === undefined) {
    markNotRun(`rate limits of two instances when ${store.name} comes back`, store.service);
    continue;
  }
  describe(`rate limits of two instances when ${store.name} comes back`, function () {
    this.timeout(90_000);

    it(`add the calls each instance let through alone to ${store.name}'s count, so the window lets at most 2 × the limit through`, async () => {
      const held = await store.open();
      const warnings: string[] = [];
      const parts: Array<{ close(): Promise<void> }> = [];
      try {
        const urls: string[] = [];
        for (const instance of [0, 1]) {
          const { registry, close } = held.registry(instance);
          parts.push({ close });
          await registry.ready();
          if (instance === 0) await registry.activate(orders);
          const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), {
            logger: { warn: (_fields, message) => warnings.push(String(message)), error: () => undefined },
          });
          const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
          parts.push({ close: () => running.close() });
          urls.push(`http://127.0.0.1:${running.port}/webhook/orders`);
        }
        for (const url of urls) await eventually(async () => (await call(url, 'GET')) === 405, 3000);
        const statuses: number[] = [];
        // The store counts one call of each instance.
        for (const url of urls) statuses.push(await call(url));

        held.freeze();
        // The first call of each finds the store silent and is counted alone; then each lets its limit through alone.
        statuses.push(...await Promise.all(urls.map((url) => call(url))));
        statuses.push(...await Promise.all(urls.flatMap((url) => Array.from({ length: LIMIT }, () => call(url)))));
        expect(statuses.filter((status) => status === 200), 'calls through before the store came back').to.have.length(2 * LIMIT);

        held.thaw();
        const back = (): number => warnings.filter((message) => message.startsWith('workflow-webhooks: the registry counts rate limits again')).length;
        await eventually(async () => {
          statuses.push(...await Promise.all(urls.map((url) => call(url))));
          return back() === 2;
        }, 20_000);
        // Counted by the store again, which holds what both let through alone.
        const after = await Promise.all(urls.flatMap((url) => Array.from({ length: LIMIT }, () => call(url))));
        expect(after.filter((status) => status === 200), `calls through once ${store.name} counts again`).to.have.length(0);
        expect(statuses.filter((status) => status === 200), 'calls through in the window, of a limit of 20 on 2 instances').to.have.length(2 * LIMIT);
        expect([...statuses, ...after].filter((status) => status !== 200 && status !== 429)).to.deep.equal([]);
      } finally {
        held.thaw();
        for (const part of parts.reverse()) await part.close().catch(() => undefined);
        await held.stop();
      }
    });
  });
}
