/**
 * The stores every queue spec runs on — the three Redis topologies and PostgreSQL — each started by the describe
 * that runs on it (one server or group per spec file) and stopped after it. A spec gets the same queue(), worker()
 * and app() on each; what only one store has (pausing a redis-server, raw commands, key prefixes; PostgreSQL's rows)
 * is reached through `onRedis` / `onPostgres`, undefined on the other store, so a case written for one cannot run on
 * the other by mistake. A store whose server this machine lacks is listed NOT RUN.
 */
import pg from 'pg';
import { POSTGRES, PostgresServer } from '../postgres-server.js';
import { REDIS } from '../redis-server.js';
import { TOPOLOGIES, type RunningTopology, type TopologyName } from '../redis/topologies.js';
import { findService, markNotRun, type Service } from '../services.js';
import { queueParts, queueSetup, type QueueParts, type QueueSetup } from './setup.js';

/**
 * A queue's enqueue deadline (a second or two by default) counts its first connection too: a Sentinel client's discovery, a pool's
 * first connections on a loaded machine take longer. The cases about the deadline set their own.
 */
const SPEC_QUEUE = { enqueueTimeoutMs: 10_000 };

export type QueueStoreName = Extract<TopologyName, 'one redis-server' | 'Redis Cluster' | 'Sentinel'> | 'PostgreSQL';

/** What only PostgreSQL has: its server to stop and start, and a pool of the spec's own for looking into rows. */
export interface PostgresSide {
  readonly server: PostgresServer;
  /** Runs one statement with the spec's own pool; resolves its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /**
   * Runs `during` while a transaction of the spec's own holds the tables locked (ACCESS EXCLUSIVE): statements on
   * them wait, as commands wait on a paused redis-server. Released (rolled back) when `during` settles.
   */
  locked<T>(tables: readonly string[], during: () => Promise<T>): Promise<T>;
}

export interface StoreQueueSetup extends QueueParts {
  readonly store: QueueStoreName;
  /** The Redis parts (server, client, prefix, send), on a Redis store only. Known when the describe is defined. */
  readonly onRedis: QueueSetup | undefined;
  /** The PostgreSQL parts, on PostgreSQL only. Known when the describe is defined. */
  readonly onPostgres: PostgresSide | undefined;
}

export interface QueueStore {
  readonly name: QueueStoreName;
  readonly service: Service;
  /** Call first inside the describe: starts the store before its tests, stops it after them. */
  setup(): StoreQueueSetup;
}

function onTopology(name: QueueStoreName): QueueStore {
  const starter = TOPOLOGIES.find((topology) => topology.name === name);
  if (starter === undefined) throw new Error(`no Redis topology named ${name}`);
  return {
    name,
    service: REDIS,
    setup() {
      let topology: RunningTopology | undefined;
      before(async () => { topology = await starter.start(); });
      const redis = queueSetup(() => topology as RunningTopology, SPEC_QUEUE);
      after(async () => { await topology?.stop(); });
      return { store: name, get name() { return redis.name; }, queue: redis.queue, worker: redis.worker, app: redis.app, onRedis: redis, onPostgres: undefined };
    },
  };
}

const ON_POSTGRES: QueueStore = {
  name: 'PostgreSQL',
  service: POSTGRES,
  setup() {
    let server: PostgresServer | undefined;
    let pool: pg.Pool | undefined;
    before(async function () {
      // initdb and the first start take seconds on a loaded machine.
      this.timeout(120_000);
      server = await PostgresServer.start();
      pool = new pg.Pool({ connectionString: (server as PostgresServer).url, max: 2 });
      pool.on('error', () => undefined);
    });
    // A URL: each queue and worker opens (and on close ends) pools of its own.
    const parts = queueParts(() => (server as PostgresServer).url, SPEC_QUEUE);
    after(async () => {
      await pool?.end();
      await server?.stop();
    });
    const side: PostgresSide = {
      get server() { return server as PostgresServer; },
      async query<Row>(sql: string, params: unknown[] = []) { return (await (pool as pg.Pool).query(sql, params)).rows as Row[]; },
      async locked(tables, during) {
        const client = await (pool as pg.Pool).connect();
        try {
          await client.query('BEGIN');
          await client.query(`LOCK TABLE ${tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
          return await during();
        } finally {
          await client.query('ROLLBACK').catch(() => undefined);
          client.release();
        }
      },
    };
    return { store: 'PostgreSQL', get name() { return parts.name; }, queue: parts.queue, worker: parts.worker, app: parts.app, onRedis: undefined, onPostgres: side };
  },
};

/** One redis-server, a Redis Cluster, Sentinel, and PostgreSQL. */
export const QUEUE_STORES: readonly QueueStore[] = [onTopology('one redis-server'), onTopology('Redis Cluster'), onTopology('Sentinel'), ON_POSTGRES];

/** The stores this machine can start; each other one is listed NOT RUN for `what` (and fails under REQUIRE_SERVICES=1). */
export function queueStores(what: string, stores: readonly QueueStore[] = QUEUE_STORES): QueueStore[] {
  return stores.filter((store) => {
    if (findService(store.service) !== undefined) return true;
    markNotRun(`${what} on ${store.name}`, store.service);
    return false;
  });
}

/** Runs `during` while the store takes no job: a paused redis-server, or PostgreSQL's job table locked. */
export async function whileStoreStalled<T>(setup: Pick<StoreQueueSetup, 'onRedis' | 'onPostgres'>, during: () => Promise<T>): Promise<T> {
  if (setup.onPostgres !== undefined) return setup.onPostgres.locked(['bullmq.job'], during);
  const redis = setup.onRedis as QueueSetup;
  redis.server.pause();
  try {
    return await during();
  } finally {
    redis.server.resume();
  }
}
