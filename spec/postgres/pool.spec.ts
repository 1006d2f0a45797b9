/**
 * The library's way to PostgreSQL's pools (lib/postgres/pool.ts): a connection lent by a pool is heard from the start
 * and given back when late, and the pools a store opens itself from its connection strings are ended by its close().
 */
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { PostgresCallLog, PostgresHistoryStore, PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { connectWithin, openPool, type PostgresClientLike, type PostgresPoolLike } from '../../lib/postgres/pool.js';
import { closeAll, eachOf } from '../support/close-all.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';

/**
 * A pool that lends a connection the way node-postgres' pool does (the callback at once, the promise a tick later)
 * and, like a server that terminated the backend right after readying it, has the connection report its end in the
 * same turn, before a promise's continuation could listen.
 */
function poolEndingItsConnections(): { pool: PostgresPoolLike; released: unknown[] } {
  const released: unknown[] = [];
  const lend = (): PostgresClientLike => Object.assign(new EventEmitter(), {
    query: () => Promise.reject(new Error('terminating connection due to administrator command')),
    release: (error?: unknown) => { released.push(error); },
  }) as unknown as PostgresClientLike;
  const pool = {
    connect(callback?: (error: Error | undefined, client: PostgresClientLike | undefined) => void): Promise<PostgresClientLike> | undefined {
      const client = lend();
      if (callback !== undefined) callback(undefined, client);
      const lent = callback === undefined ? Promise.resolve(client) : undefined;
      (client as unknown as EventEmitter).emit('error', new Error('terminating connection due to administrator command'));
      return lent;
    },
    end: () => Promise.resolve(),
    on: () => pool,
  };
  return { pool: pool as unknown as PostgresPoolLike, released };
}

describe('a PostgreSQL connection taken from the pool', () => {
  it('does not end the process when the server ends it in the same turn as it is lent', async () => {
    const { pool } = poolEndingItsConnections();
    const client = await connectWithin(pool, 1000);
    // Heard for good: a later report of its end is heard too.
    expect(() => (client as unknown as EventEmitter).emit('error', new Error('Connection terminated unexpectedly'))).not.to.throw();
  });

  it('goes straight back to the pool when it is lent after the deadline', async () => {
    const released: unknown[] = [];
    let lend: (() => void) | undefined;
    const pool = {
      connect(callback: (error: Error | undefined, client: PostgresClientLike | undefined) => void) {
        lend = () => callback(undefined, { release: (error?: unknown) => released.push(error ?? 'back'), on: () => undefined } as unknown as PostgresClientLike);
      },
    } as unknown as PostgresPoolLike;
    const error = await connectWithin(pool, 20).then(() => undefined, (failure: unknown) => failure as Error);
    expect(error?.message).to.equal('no answer within 20 ms');
    lend?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).to.deep.equal(['back']);
  });
});

if (findService(POSTGRES) === undefined) {
  markNotRun('a pool the library opens', POSTGRES);
} else {
  describe('a pool the library opens', () => {
    it('gives each connection a listener for its errors as it is made, so one lent by the promise form (as BullMQ takes them) is heard too', async () => {
      const server = await sharedPostgres() as PostgresServer;
      const pool = await openPool(server.url);
      const client = await (pool as unknown as { connect(): Promise<EventEmitter & PostgresClientLike> }).connect();
      // Lent: node-postgres' pool has taken its own idle listener off; ours stays.
      const listeners = client.listenerCount('error');
      client.release();
      await pool.end();
      expect(listeners).to.equal(1);
    });
  });
}

/** A store opened on connection strings of its own, for the spec to use and close. */
interface OpenedStore {
  use(): Promise<unknown>;
  close(): Promise<unknown>;
}

/** Each store that opens pools of its own, and a use of it that takes a connection of both (the directUrl's too). */
const STORES_WITH_OWN_POOLS: Array<[string, (connectionString: string, directUrl: string, schema: string) => OpenedStore]> = [
  ['PostgresHistoryStore', (connectionString, directUrl, schema) => {
    // Its first find migrates the schema over directUrl.
    const store = new PostgresHistoryStore({ connectionString, directUrl, schema });
    return { use: () => store.find({ limit: 1 }), close: () => store.close() };
  }],
  ['PostgresCallLog', (connectionString, directUrl, schema) => {
    const log = new PostgresCallLog({ connectionString, directUrl, schema, onError: () => undefined });
    return {
      async use() {
        log.subscribe(() => undefined);
        await log.subscribed();
        return log.recent();
      },
      close: () => log.close(),
    };
  }],
  ['PostgresWebhookRegistry', (connectionString, directUrl, schema) => {
    const registry = new PostgresWebhookRegistry({ connectionString, directUrl, schema, onEvent: () => undefined });
    return { use: () => registry.ready(), close: () => registry.close() };
  }],
];

if (findService(POSTGRES) === undefined) {
  markNotRun('the pools a store opens itself', POSTGRES);
} else {
  describe('the pools a store opens itself', function () {
    this.timeout(30_000);
    let reader: pg.Pool | undefined;
    let url = '';
    const opened: OpenedStore[] = [];
    before(async () => {
      url = (await sharedPostgres() as PostgresServer).url;
      reader = new pg.Pool({ connectionString: url, max: 1 });
      reader.on('error', () => undefined);
    });
    afterEach(() => closeAll(...eachOf(opened.splice(0), (store) => store.close())));
    after(() => closeAll(() => reader?.end()));

    /** How many connections the server holds under each application_name. */
    async function connectionsNamed(names: string[]): Promise<number[]> {
      const found = await (reader as pg.Pool).query('SELECT application_name AS name FROM pg_stat_activity WHERE application_name = ANY($1)', [names]);
      return names.map((name) => found.rows.filter((row) => row.name === name).length);
    }

    for (const [name, open] of STORES_WITH_OWN_POOLS) {
      it(`${name}: close() gives back every connection of the pools it opened from connectionString and directUrl`, async () => {
        const tag = `${name.toLowerCase()}_${process.pid}`;
        const names = [`${tag}_main`, `${tag}_direct`];
        const store = open(`${url}?application_name=${names[0]}`, `${url}?application_name=${names[1]}`, `pools_${tag}`);
        opened.push(store);
        await store.use();
        expect((await connectionsNamed(names)).map((count) => count > 0)).to.deep.equal([true, true]);
        await store.close();
        // Within 5 s, half the 10 s after which node-postgres closes an idle connection by itself: gone because ended.
        const deadline = Date.now() + 5000;
        let left = await connectionsNamed(names);
        while (left.some((count) => count > 0) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          left = await connectionsNamed(names);
        }
        expect(left).to.deep.equal([0, 0]);
      });
    }
  });
}
