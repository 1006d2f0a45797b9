import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { connectWithin, type PostgresClientLike, type PostgresPoolLike } from '../../lib/postgres/pool.js';

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
