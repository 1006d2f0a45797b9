/**
 * The shared stores of a registry (Redis, PostgreSQL) as the specs of what every instance shares use them (waits,
 * rate limits): a real server per describe, registries opened on a namespace of the test's choosing (a Redis key
 * prefix, a PostgreSQL schema) and closed after each test whatever happened, what the store holds of a namespace,
 * the store frozen (a paused redis-server; on PostgreSQL the namespace's table locked, so statements on it wait as
 * commands wait on a paused Redis), and the store away (stopped, then started again on the same address).
 */
import pg from 'pg';
import { createClient } from 'redis';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { POSTGRES, PostgresServer } from './postgres-server.js';
import { REDIS, RedisServer } from './redis-server.js';
import { closeAll } from './close-all.js';
import { findService, markNotRun, type Service } from './services.js';

export type SharedRegistry = RedisWebhookRegistry | PostgresWebhookRegistry;

export interface RegistryOptions {
  commandTimeoutMs?: number;
  maxWaiting?: number;
}

/** What the store keeps of a namespace, by what it is for: its waits, its rate limits' budgets. */
export type Kept = 'waits' | 'rate_budgets';

export interface SharedStoreSetup {
  /** Opens a registry on `namespace` (a name of letters, digits and underscores); closed after the test. */
  open(namespace: string, options?: RegistryOptions): Promise<SharedRegistry>;
  /** How many entries of `kept` the store holds for `namespace`: Redis's keys under its prefix, PostgreSQL's rows of that table. */
  stored(namespace: string, kept?: Kept): Promise<number>;
  /** Forgets every entry of `kept` of `namespace`, as a store that lost them would. */
  forget(namespace: string, kept: Kept): Promise<void>;
  /** Runs `during` while the store does not answer what `namespace` keeps as `kept`; it answers again once `during` settles. */
  frozen<T>(namespace: string, during: () => Promise<T>, kept?: Kept): Promise<T>;
  /** Stops the store at once (Redis loses its data, PostgreSQL keeps it). */
  away(): Promise<void>;
  /** Starts it again on the same address; resolves once it takes connections. */
  back(): Promise<void>;
}

export interface SharedStore {
  readonly name: 'Redis' | 'PostgreSQL';
  readonly service: Service;
  /** Call first inside the describe: starts the store before its tests and stops it after them. */
  setup(): SharedStoreSetup;
}

/** Closes what a test opened, each whatever the others did: one left open keeps mocha from ending. */
function closedAfterEach(closers: Array<() => Promise<unknown> | unknown>): void {
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await Promise.resolve().then(close).catch(() => undefined);
  });
}

/** Redis's keys of `kept` under a prefix: for waits all of them (the specs that count waits store nothing else), for budgets `rate…`. */
const REDIS_PATTERN: Record<Kept, string> = { waits: '*', rate_budgets: 'rate*' };

const ON_REDIS: SharedStore = {
  name: 'Redis',
  service: REDIS,
  setup() {
    let server: RedisServer | undefined;
    let spec: ReturnType<typeof createClient> | undefined;
    const closers: Array<() => unknown> = [];
    before(async () => {
      server = await RedisServer.start();
      spec = createClient({ url: (server as RedisServer).url });
      spec.on('error', () => undefined);
      await spec.connect();
    });
    closedAfterEach(closers);
    after(() => closeAll(() => server?.resume(), () => spec?.destroy(), () => server?.stop()));
    return {
      async open(namespace, options = {}) {
        // The registry takes the client as node-redis made it.
        const client = createClient({ url: (server as RedisServer).url });
        client.on('error', () => undefined);
        closers.push(() => client.destroy());
        await client.connect();
        const registry = new RedisWebhookRegistry({ client, prefix: `${namespace}:`, onEvent: () => undefined, ...options });
        closers.push(() => registry.close());
        await registry.ready();
        return registry;
      },
      async stored(namespace, kept = 'waits') {
        return (await (spec as NonNullable<typeof spec>).keys(`${namespace}:${REDIS_PATTERN[kept]}`)).length;
      },
      async forget(namespace, kept) {
        const keys = await (spec as NonNullable<typeof spec>).keys(`${namespace}:${REDIS_PATTERN[kept]}`);
        if (keys.length > 0) await (spec as NonNullable<typeof spec>).del(keys);
      },
      away: async () => { await server?.kill(); },
      back: async () => {
        await server?.restart();
        // The spec's own client finds it again by itself; it is asked only once Redis answers.
        await (spec as NonNullable<typeof spec>).ping();
      },
      async frozen(_namespace, during) {
        server?.pause();
        try {
          return await during();
        } finally {
          server?.resume();
        }
      },
    };
  },
};

const ON_POSTGRES: SharedStore = {
  name: 'PostgreSQL',
  service: POSTGRES,
  setup() {
    let server: PostgresServer | undefined;
    let pool: pg.Pool | undefined;
    const closers: Array<() => unknown> = [];
    before(async function () {
      // initdb and the first start take seconds on a loaded machine.
      this.timeout(120_000);
      server = await PostgresServer.start();
      pool = new pg.Pool({ connectionString: (server as PostgresServer).url, max: 4 });
      pool.on('error', () => undefined);
    });
    closedAfterEach(closers);
    after(() => closeAll(() => pool?.end(), () => server?.stop()));
    return {
      async open(namespace, options = {}) {
        const registry = new PostgresWebhookRegistry({ connectionString: (server as PostgresServer).url, schema: namespace, onEvent: () => undefined, ...options });
        closers.push(() => registry.close());
        await registry.ready();
        return registry;
      },
      async stored(namespace, kept = 'waits') {
        const { rows } = await (pool as pg.Pool).query(`SELECT count(*)::int AS n FROM ${namespace}.${kept}`);
        return Number(rows[0].n);
      },
      async forget(namespace, kept) {
        await (pool as pg.Pool).query(`DELETE FROM ${namespace}.${kept}`);
      },
      away: async () => { await server?.stopImmediately(); },
      back: async () => { await server?.startAgain(); },
      async frozen(namespace, during, kept = 'waits') {
        const client = await (pool as pg.Pool).connect();
        try {
          await client.query('BEGIN');
          await client.query(`LOCK TABLE ${namespace}.${kept} IN ACCESS EXCLUSIVE MODE`);
          return await during();
        } finally {
          await client.query('ROLLBACK').catch(() => undefined);
          client.release();
        }
      },
    };
  },
};

/** The stores this machine can start; each other one is listed NOT RUN for `what` (and fails under REQUIRE_SERVICES=1). */
export function sharedStores(what: string): SharedStore[] {
  return [ON_REDIS, ON_POSTGRES].filter((store) => {
    if (findService(store.service) !== undefined) return true;
    markNotRun(`${what} on ${store.name}`, store.service);
    return false;
  });
}
