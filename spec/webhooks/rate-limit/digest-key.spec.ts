/**
 * What Redis and PostgreSQL keep of a caller limited by its address: budget names digested under the deployment's
 * digest key (`rateLimit.digestKey`, one derived from `waitingSecret`, else the random key the store keeps for the
 * deployment), which a reader of the store cannot match against guessed addresses, and which every instance with the
 * same key shares.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createClient } from 'redis';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddlewareOptions, type WebhookRegistry } from 'workflow-webhooks';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { listen, sendTo } from '../../support/raw-http.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { eventually } from '../../support/registry-contract/instances.js';
import { findService, markNotRun, type Service } from '../../support/services.js';
import { workflow } from '../../support/workflows.js';

const KEY = 'a digest key of at least thirty-two bytes, shared';
const LIMITED = workflow('wf', { path: 'hook', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 2, windowMs: 60_000, key: 'ip' } } });

/** The registry as a host's own might wrap it: the same store, without `digestKey()`, so its digests are unkeyed. */
function withoutStoreKey<T extends object>(registry: T): T {
  return new Proxy(registry, {
    get(target, name) {
      if (name === 'digestKey') return undefined;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

interface Store {
  /** A registry in namespace `space` (a Redis prefix, a PostgreSQL schema); the same space is one shared store. */
  registry(space: string, onEvent?: (event: { type: string; reason?: string }) => void): Promise<WebhookRegistry & { close(): Promise<void> }>;
  /** Redis only: deletes every key of `space`, as a Redis that came back empty would have none. */
  empty?(space: string): Promise<void>;
  /** The budget names stored in `space`, as the store holds them. */
  storedBudgets(space: string): Promise<string[]>;
  close(): Promise<void>;
}

const STORES: ReadonlyArray<{ name: string; service: Service; open(): Promise<Store> }> = [
  {
    name: 'Redis',
    service: REDIS,
    async open() {
      const server = await RedisServer.start() as RedisServer;
      type Client = ReturnType<typeof createClient>;
      const clients: Client[] = [];
      const client = async (): Promise<Client> => {
        const made: Client = createClient({ url: server.url }) as never;
        made.on('error', () => undefined);
        await made.connect();
        clients.push(made);
        return made;
      };
      const reader = await client();
      return {
        registry: async (space, onEvent) => new RedisWebhookRegistry({ client: await client() as never, prefix: `${space}:`, ...(onEvent === undefined ? {} : { onEvent }) }),
        empty: async (space) => { for (const key of await reader.keys(`${space}:*`)) await reader.del(key); },
        // The budget's digest is the last part of its key (`<prefix>rate:<digest>`).
        storedBudgets: async (space) => (await reader.keys(`*${space}*rate:*`)).map((key) => key.slice(key.lastIndexOf(':') + 1)),
        async close() {
          for (const made of clients) made.destroy();
          await server.stop();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    service: POSTGRES,
    async open() {
      const server = await sharedPostgres() as PostgresServer;
      const admin = new pg.Pool({ connectionString: server.url, max: 2 });
      return {
        registry: async (space) => new PostgresWebhookRegistry({ connectionString: server.url, schema: space }),
        storedBudgets: async (space) => (await admin.query(`SELECT budget FROM ${space}.rate_budgets`)).rows.map((row) => String(row.budget)),
        close: () => admin.end(),
      };
    },
  },
];

for (const store of STORES) {
  if (findService(store.service) === undefined) {
    markNotRun(`rate-limit digests under a key on ${store.name}`, store.service);
    continue;
  }
  describe(`rate-limit budgets kept on ${store.name} under the deployment's digest key`, function () {
    this.timeout(60_000);
    let opened: Store;
    const closing: Array<() => Promise<void>> = [];
    const run = `${process.pid}_${Date.now() % 100_000}`;

    before(async function () {
      this.timeout(60_000);
      opened = await store.open();
    });
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
    });
    after(async () => { await opened?.close(); });

    /**
     * One instance: a registry in `space` and a middleware with `options`, serving over loopback; `keyless`: the
     * registry without its `digestKey()`, digesting unkeyed.
     */
    async function instance(space: string, options: WebhookMiddlewareOptions, keyless = false): Promise<(count: number) => Promise<number[]>> {
      const opening = await opened.registry(space);
      closing.push(() => opening.close());
      await (opening as { ready?: () => Promise<void> }).ready?.();
      const registry = keyless ? withoutStoreKey(opening) : opening;
      await registry.activate(LIMITED);
      const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), { logger: { warn: () => undefined, error: () => undefined }, ...options });
      const server = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
      closing.push(() => server.close());
      return async (count) => {
        const statuses: number[] = [];
        for (let call = 0; call < count; call += 1) statuses.push((await sendTo(server.port, { method: 'POST', path: '/webhook/hook' })).status);
        return statuses;
      };
    }

    for (const [name, options] of [
      ['rateLimit.digestKey', { rateLimit: { digestKey: KEY } }],
      ['a key derived from waitingSecret', { waitingSecret: KEY }],
      ['the store\'s own key when neither option is set', {}],
    ] as const) {
      it(`stores a caller's budget under ${name}, never under the unkeyed digest of its address`, async () => {
        const unkeyed = `dk_plain_${run}_${name.length}`;
        const keyed = `dk_keyed_${run}_${name.length}`;
        await (await instance(unkeyed, {}, true))(1);
        await (await instance(keyed, options))(1);
        const plain = await opened.storedBudgets(unkeyed);
        const kept = await opened.storedBudgets(keyed);
        expect(plain, 'the unkeyed instance stored budgets').to.have.length.greaterThan(0);
        expect(kept, 'the keyed instance stored budgets').to.have.length(plain.length);
        expect(kept.filter((budget) => plain.includes(budget)), 'no stored name is an unkeyed digest').to.deep.equal([]);
      });
    }

    it('tells the logger once that callers\' digests are unkeyed when the registry keeps no key, and nothing when a key is set or kept', async () => {
      const told = (into: string[]): WebhookMiddlewareOptions['logger'] => ({ warn: (_fields, message) => { into.push(String(message)); }, error: () => undefined });
      const plain: string[] = [];
      const keyed: string[] = [];
      const kept: string[] = [];
      await (await instance(`dk_told_plain_${run}`, { logger: told(plain) }, true))(3);
      await (await instance(`dk_told_keyed_${run}`, { logger: told(keyed), rateLimit: { digestKey: KEY } }))(3);
      await (await instance(`dk_told_kept_${run}`, { logger: told(kept) }))(3);
      expect(plain.filter((message) => /unkeyed digests/.test(message))).to.have.length(1);
      expect(plain[0]).to.include('Set rateLimit.digestKey (or waitingSecret)');
      expect(keyed).to.deep.equal([]);
      expect(kept).to.deep.equal([]);
    });

    for (const [name, options] of [
      ['the same configured key', [{ rateLimit: { digestKey: KEY } }, { rateLimit: { digestKey: Buffer.from(KEY) } }]],
      ['the store\'s own key (neither option set)', [{}, {}]],
    ] as const) {
      it(`counts a caller once across two instances with ${name}`, async () => {
        const space = `dk_shared_${run}_${name.length}`;
        const first = await instance(space, options[0]);
        const second = await instance(space, options[1]);
        expect([...await first(1), ...await second(1), ...await first(1), ...await second(1)]).to.deep.equal([200, 200, 429, 429]);
      });
    }

    // Only Redis comes back empty (restarted without persistence): PostgreSQL's tables do not vanish under a registry.
    if (store.name === 'Redis') {
      it('keeps the deployment\'s key when Redis comes back empty, so instances started after digest as the running ones do', async () => {
        const space = `dk_empty_${run}`;
        const reasons: string[] = [];
        const running = await opened.registry(space, (event) => { if (event.type === 'resynced') reasons.push(String(event.reason)); });
        closing.push(() => running.close());
        await (running as { ready?: () => Promise<void> }).ready?.();
        const key = running.digestKey?.()?.toString('hex');
        await opened.empty?.(space);
        await eventually(async () => reasons.includes('reset'), 10_000);
        const started = await opened.registry(space);
        closing.push(() => started.close());
        await (started as { ready?: () => Promise<void> }).ready?.();
        expect(key).to.have.length(64);
        expect(started.digestKey?.()?.toString('hex')).to.equal(key);
      });
    }

    it('gives instances starting at once over a new store one key', async () => {
      const space = `dk_race_${run}`;
      const registries = await Promise.all(Array.from({ length: 4 }, () => opened.registry(space)));
      closing.push(async () => { for (const registry of registries) await registry.close(); });
      await Promise.all(registries.map((registry) => (registry as { ready?: () => Promise<void> }).ready?.()));
      const keys = registries.map((registry) => registry.digestKey?.()?.toString('hex'));
      expect(keys[0]).to.have.length(64);
      expect(keys).to.deep.equal(keys.map(() => keys[0]));
    });
  });
}

describe('rateLimit.digestKey', () => {
  it('is refused at the factory when shorter than 32 bytes', () => {
    expect(() => createWebhookMiddleware(new MemoryWebhookRegistry(), () => ({ items: [] }), { rateLimit: { digestKey: 'short' } }))
      .to.throw(TypeError, /rateLimit\.digestKey.*at least 32 bytes/);
  });

  it('tells nothing of unkeyed digests when the budgets never leave the process (the memory registry, or one without chargeRateLimits)', async () => {
    const memory = new MemoryWebhookRegistry();
    // A host's own registry that counts nothing itself: the middleware counts its calls in this process.
    const uncounting = new Proxy(new MemoryWebhookRegistry(), {
      getPrototypeOf: () => Object.prototype,
      get(target, name) {
        if (name === 'chargeRateLimits' || name === 'addRateLimitCalls') return undefined;
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as WebhookRegistry;
    const told: string[] = [];
    for (const registry of [memory, uncounting]) {
      await registry.activate(LIMITED);
      const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), { logger: { warn: (_fields, message) => { told.push(String(message)); }, error: () => undefined } });
      const server = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
      try {
        expect((await sendTo(server.port, { method: 'POST', path: '/webhook/hook' })).status).to.equal(200);
      } finally {
        await server.close();
      }
    }
    expect(told.filter((message) => /unkeyed digests/.test(message))).to.deep.equal([]);
    expect(told.filter((message) => /no chargeRateLimits/.test(message)), 'the registry without it was asked').to.have.length(1);
  });
});
