import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { connectWithin, openPool, type PostgresClientLike, type PostgresPoolLike } from '../../lib/postgres/pool.js';
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
