/**
 * Rate limits shared by three instances of a backend, each a process of its own, on one redis-server: together they
 * let exactly `limit` calls through per window, however the calls spread over them, also under a load of a few
 * thousand calls a second; keyed by caller address, each caller has its own budget everywhere; Redis holds digests
 * and counts only. With the store gone or frozen, each instance keeps limiting on its own until it is back: on every
 * shared store, in spec/webhooks/rate-limit/store-away.spec.ts.
 */
import { expect } from 'chai';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { createClient } from 'redis';
import type { WorkflowWebhooks } from 'workflow-webhooks';
import { clusterOfProcesses, type Cluster } from '../support/instances/cluster.js';
import { eventually } from '../support/registry-contract/instances.js';
import { shortenRateWindows } from '../support/redis/rate-windows.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll } from '../support/close-all.js';

interface Answer { status: number; headers: IncomingHttpHeaders; body: string }

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

function call(url: string, options: { method?: string; headers?: Record<string, string>; from?: string; pooled?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? 'POST', headers: { 'content-type': 'application/json', ...options.headers }, localAddress: options.from,
      agent: options.pooled === true ? agent : undefined,
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.method === 'GET' ? undefined : '{"n":1}');
  });
}

/** `total` calls spread over the urls in turn, `concurrency` at a time, on pooled keep-alive connections. */
async function load(urls: readonly string[], path: string, total: number, concurrency: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const index = next;
      next += 1;
      answers.push(await call(`${urls[index % urls.length] as string}${path}`, { pooled: true }));
    }
  }));
  return answers;
}

const limited = (workflowId: string, path: string, rateLimit: unknown, responseMode = 'lastNode'): WorkflowWebhooks =>
  ({ workflowId, nodes: [{ name: 'Webhook', parameters: { path, httpMethod: 'POST', responseMode } }], settings: { rateLimit } }) as WorkflowWebhooks;

/** Each instance serves the address once a GET is told 405 (known path, other method): probing spends nothing. */
async function servedEverywhere(cluster: Cluster, path: string): Promise<void> {
  for (const url of cluster.urls) await eventually(async () => (await call(`${url}/webhook/${path}`, { method: 'GET' })).status === 405, 3000);
}

const remainingOf = (answer: Answer): number => Number(/;r=(\d+);/.exec(String(answer.headers.ratelimit))?.[1]);

if (findService(REDIS) === undefined) {
  markNotRun('rate limits shared by three instances on one redis-server', REDIS);
} else {
  describe('rate limits shared by three instances on one redis-server, each its own process', function () {
    this.timeout(60_000);
    let server: RedisServer;
    let cluster: Cluster;
    let prefix: string;
    let run = 0;

    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(() => closeAll(() => agent?.destroy(), () => server?.stop()));
    beforeEach(async () => {
      prefix = `rate-${process.pid}-${(run += 1)}:`;
      cluster = await clusterOfProcesses(server.url, prefix);
    });
    afterEach(async () => { await cluster?.stop(); });

    const totalRuns = async (): Promise<number> => (await Promise.all([0, 1, 2].map((index) => cluster.runs(index)))).reduce((a, b) => a + b, 0);

    /** Ends every window of the test's budgets `ms` sooner: Redis measures them, by each budget's expiry. */
    async function passTime(ms: number): Promise<void> {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      try {
        await shortenRateWindows(client, prefix, ms);
      } finally {
        client.destroy();
      }
    }

    it('runs exactly 10 of 30 calls spread over the three inside one window, answers 20 with 429 and the headers, and runs calls again once the window passed', async () => {
      // A window of a minute does not pass by itself while 30 calls are answered on a slow machine; passTime() ends it.
      await cluster.activate(0, limited('orders', 'orders', { limit: 10, windowMs: 60_000 }));
      await servedEverywhere(cluster, 'orders');
      const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => call(`${cluster.urls[index % 3] as string}/webhook/orders`)));
      const ran = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status === 429);
      expect([ran.length, refused.length, await totalRuns()]).to.deep.equal([10, 20, 10]);
      expect(ran.map(remainingOf).sort((a, b) => a - b)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (const answer of refused) {
        expect(JSON.parse(answer.body)).to.include({ code: 'RATE_LIMITED' });
        expect([answer.headers['retry-after'], answer.headers['ratelimit-policy'], answer.headers.ratelimit])
          .to.deep.equal(['60', '"address-60s";q=10;w=60', '"address-60s";r=0;t=60']);
      }
      await passTime(60_000);
      const again = await Promise.all(cluster.urls.map((url) => call(`${url}/webhook/orders`)));
      expect(again.map((answer) => answer.status)).to.deep.equal([200, 200, 200]);
      expect(await totalRuns()).to.equal(13);
    });

    it('gives two caller addresses a budget each, whichever instances their calls reach, with key "ip"', async () => {
      await cluster.activate(1, limited('orders', 'orders', { limit: 3, windowMs: 60_000, key: 'ip' }));
      await servedEverywhere(cluster, 'orders');
      const from = async (address: string): Promise<number[]> =>
        (await Promise.all(Array.from({ length: 6 }, (_, index) => call(`${cluster.urls[index % 3] as string}/webhook/orders`, { from: address })))).map((answer) => answer.status).sort();
      expect(await from('127.0.0.1')).to.deep.equal([200, 200, 200, 429, 429, 429]);
      expect(await from('127.0.0.2')).to.deep.equal([200, 200, 200, 429, 429, 429]);
      expect(await totalRuns()).to.equal(6);
    });

    it('never lets more than the limit through in a window under a load of thousands of calls over the three', async () => {
      // One long window: exactly the limit runs, and each call through saw a different count (no two raced past one).
      await cluster.activate(0, limited('long', 'long', { limit: 500, windowMs: 60_000 }, 'onReceived'));
      await cluster.activate(0, limited('short', 'short', { limit: 40, windowMs: 60_000 }, 'onReceived'));
      await servedEverywhere(cluster, 'long');
      await servedEverywhere(cluster, 'short');
      const long = await load(cluster.urls, '/webhook/long', 4000, 48);
      const through = long.filter((answer) => answer.status === 200);
      expect(through).to.have.length(500);
      expect(long.filter((answer) => answer.status === 429)).to.have.length(3500);
      expect(new Set(through.map(remainingOf)).size).to.equal(500);
      // Three windows one after the other, each under load: in each the counts 39 … 0 appear once each, so no window
      // let a 41st call through, and each new window has its whole limit again. (Each window ends by passTime().)
      let shortThrough = 0;
      for (let window = 0; window < 3; window += 1) {
        const short = await load(cluster.urls, '/webhook/short', 600, 48);
        const counts = short.filter((one) => one.status === 200).map(remainingOf).sort((a, b) => a - b);
        expect(counts, `window ${window}`).to.deep.equal(Array.from({ length: 40 }, (_, index) => index));
        shortThrough += counts.length;
        await passTime(60_000);
      }
      expect(await totalRuns()).to.equal(500 + shortThrough);
    });

    it('keeps digests and counts in Redis, never a caller\'s API key or address', async () => {
      const key = 'sk_live_redis_0123456789abcdef';
      await cluster.activate(2, limited('keyed', 'keyed', [{ limit: 5, windowMs: 60_000, key: 'x-api-key' }, { limit: 5, windowMs: 60_000, key: 'ip' }]));
      await servedEverywhere(cluster, 'keyed');
      expect((await call(`${cluster.urls[0] as string}/webhook/keyed`, { headers: { 'x-api-key': key } })).status).to.equal(200);
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      try {
        const names = await client.keys(`${prefix}rate*`);
        // Per policy: the caller's budget, and the count of caller budgets its scope opened.
        expect(names.length).to.equal(4);
        for (const name of names) {
          expect(name).to.match(/^rate-\d+-\d+:rate(-opened)?:[\w-]{22}$/);
          expect(await client.get(name)).to.equal('1');
          expect(await client.pTTL(name)).to.be.within(50_000, 60_000);
        }
        expect(names.join()).to.not.include(key).and.not.include('127.0.0.1');
      } finally {
        client.destroy();
      }
    });
  });
}
