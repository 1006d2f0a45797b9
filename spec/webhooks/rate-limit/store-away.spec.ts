/**
 * Rate limits of several instances while their shared store does not answer, on each store (Redis, PostgreSQL), with
 * `storeFailure: 'local'`: frozen (a paused redis-server, PostgreSQL's budgets table locked), together they let at
 * most instances × limit through per window, counting the calls before the freeze, and once it is noticed no call
 * waits for the store again; away (stopped), each instance counts its own calls, told once to the logger. When the
 * store answers again it counts for all.
 */
import { expect } from 'chai';
import { request, type IncomingHttpHeaders } from 'node:http';
import { createWebhookMiddleware, type WorkflowWebhooks } from 'workflow-webhooks';
import { eventually } from '../../support/registry-contract/instances.js';
import { listen } from '../../support/raw-http.js';
import { sharedStores, type SharedRegistry, type SharedStoreSetup } from '../../support/shared-stores.js';

/** A call's status, headers, and how long it took, in ms. */
function call(url: string, method = 'POST'): Promise<{ status: number; headers: IncomingHttpHeaders; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const limited = (limit: number, windowMs: number): WorkflowWebhooks => ({
  workflowId: 'orders',
  nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }],
  settings: { rateLimit: { limit, windowMs } },
});

const COUNTS_AGAIN = 'workflow-webhooks: the registry counts rate limits again';

interface Instances { registries: SharedRegistry[]; urls: string[]; warnings: string[]; close(): Promise<void> }

/** `size` instances on one namespace of the store, each its middleware on a loopback server. */
async function instances(stores: SharedStoreSetup, namespace: string, size: number, commandTimeoutMs: number): Promise<Instances> {
  const warnings: string[] = [];
  const closers: Array<() => Promise<void>> = [];
  const registries: SharedRegistry[] = [];
  const urls: string[] = [];
  try {
    for (let index = 0; index < size; index += 1) {
      const registry = await stores.open(namespace, { commandTimeoutMs });
      const middleware = createWebhookMiddleware(registry, () => ({ items: [{ json: {} }] }), {
        logger: { warn: (_fields, message) => warnings.push(String(message)), error: () => undefined },
      });
      const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
      closers.push(() => running.close());
      registries.push(registry);
      urls.push(`http://127.0.0.1:${running.port}/webhook/orders`);
    }
  } catch (error) {
    for (const close of closers) await close();
    throw error;
  }
  return { registries, urls, warnings, close: async () => { for (const close of closers) await close().catch(() => undefined); } };
}

for (const store of sharedStores('rate limits while the shared store does not answer')) {
  describe(`rate limits of instances while their ${store.name} does not answer`, function () {
    this.timeout(60_000);
    const stores = store.setup();
    let run = 0;
    let opened: Instances | undefined;
    afterEach(async () => { await opened?.close(); opened = undefined; });

    it(`let at most 2 × the limit through in the window while ${store.name} is frozen, the calls before included, make no call wait after the first, and hand the count back`, async () => {
      // How long a store's command may take here before it fails.
      const commandTimeoutMs = 2500;
      const namespace = `frozen_${process.pid}_${(run += 1)}`;
      opened = await instances(stores, namespace, 2, commandTimeoutMs);
      const { registries, urls, warnings } = opened;
      await registries[0]?.activate(limited(10, 600_000));
      for (const url of urls) await eventually(async () => (await call(url, 'GET')).status === 405, 3000);
      // The store counts the first 10, five through each instance.
      const before = [];
      for (let index = 0; index < 10; index += 1) before.push((await call(urls[index % 2] as string)).status);
      expect(before).to.deep.equal(Array.from({ length: 10 }, () => 200));

      await stores.frozen(namespace, async () => {
        // The first call of each instance finds the store silent: it waits for the command timeout, then is counted here.
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
        // A call answered without the store takes milliseconds; one that waited for the frozen store took the command timeout.
        const waited = bursts.filter((answer) => answer.ms >= commandTimeoutMs - 100).length;
        expect(waited, `calls of the bursts that waited for the frozen ${store.name}`).to.equal(0);
        expect(warnings.filter((message) => message.includes('each instance counts its own calls'))).to.have.length(2);
      }, 'rate_budgets');

      await eventually(async () => {
        await Promise.all(urls.map((url) => call(url)));
        return warnings.filter((message) => message.startsWith(COUNTS_AGAIN)).length === 2;
      }, 10_000);
    });

    it(`keeps limiting while ${store.name} is away: each instance counts its own calls, told once to the logger, and the store counts for all once back`, async () => {
      const namespace = `away_${process.pid}_${(run += 1)}`;
      opened = await instances(stores, namespace, 3, 300);
      const { registries, urls, warnings } = opened;
      await registries[0]?.activate(limited(2, 60_000));
      for (const url of urls) await eventually(async () => (await call(url, 'GET')).status === 405, 3000);
      await stores.away();
      try {
        const statuses = [];
        for (const url of urls) statuses.push([(await call(url)).status, (await call(url)).status, (await call(url)).status]);
        expect(statuses).to.deep.equal([[200, 200, 429], [200, 200, 429], [200, 200, 429]]);
        expect(warnings.filter((message) => message.includes('each instance counts its own calls'))).to.have.length(3);
      } finally {
        await stores.back();
      }
      // Each instance finds the store back through a call of its own, counted in the instance at once and asked of the
      // store in the background; the store's answer hands the counting back.
      const back = (): number => warnings.filter((message) => message.startsWith(COUNTS_AGAIN)).length;
      await eventually(async () => {
        await Promise.all(urls.map((url) => call(url)));
        return back() === 3;
      }, 10_000);
      // The store counts for all again: with its budget opened afresh, the three (each spent in its own count) take 2 calls.
      await stores.forget(namespace, 'rate_budgets');
      expect((await call(urls[0] as string)).headers.ratelimit).to.equal('"address-60s";r=1;t=60');
      expect((await call(urls[1] as string)).headers.ratelimit).to.equal('"address-60s";r=0;t=60');
      expect((await call(urls[2] as string)).status).to.equal(429);
      expect(back()).to.equal(3);
    });
  });
}
