import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { mayHaveCommitted } from '../../lib/postgres/unsure-writes.js';
import { POSTGRES, PostgresServer, sharedPostgres } from '../support/postgres-server.js';
import { freePort } from '../support/redis-server.js';
import { failureOf } from '../support/refusal.js';
import { findService, markNotRun } from '../support/services.js';

if (findService(POSTGRES) === undefined) {
  markNotRun('telling a PostgreSQL statement that may have been committed from one that was not', POSTGRES);
} else {
  describe('telling a PostgreSQL statement that may have been committed from one that was not', function () {
    this.timeout(30_000);
    let server: PostgresServer;
    let pool: pg.Pool;

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 4 });
      pool.on('error', () => undefined);
    });
    after(async () => { await pool?.end(); });

    it('counts a statement whose backend was terminated on its way as maybe committed', async () => {
      const client = await pool.connect();
      client.on('error', () => undefined);
      const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      const sleeping = failureOf(() => client.query('SELECT pg_sleep(10)'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await pool.query('SELECT pg_terminate_backend($1)', [pid]);
      const error = await sleeping;
      client.release(error);
      expect(mayHaveCommitted(error), `${(error as { code?: string }).code} ${error.message}`).to.equal(true);
    });

    it('counts a statement the server refused, and so rolled back, as not committed', async () => {
      const refused = await failureOf(() => pool.query('SELEC 1'));
      expect(mayHaveCommitted(refused), refused.message).to.equal(false);
      const client = await pool.connect();
      try {
        await client.query('CREATE TEMP TABLE once (id int PRIMARY KEY)');
        await client.query('INSERT INTO once VALUES (1)');
        const duplicate = await failureOf(() => client.query('INSERT INTO once VALUES (1)'));
        expect(mayHaveCommitted(duplicate), duplicate.message).to.equal(false);
      } finally {
        client.release(true);
      }
    });

    it('counts a statement that found no server to connect to as not sent', async () => {
      const nowhere = new pg.Pool({ host: '127.0.0.1', port: await freePort(), user: 'nobody', database: 'none' });
      nowhere.on('error', () => undefined);
      const error = await failureOf(() => nowhere.query('SELECT 1'));
      await nowhere.end();
      expect(mayHaveCommitted(error), error.message).to.equal(false);
    });

    it('counts a statement whose connection was not made in time as not sent', async () => {
      // A server that takes the connection and never answers it.
      const silent: Server = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as { port: number }).port;
      const slow = new pg.Pool({ host: '127.0.0.1', port, user: 'nobody', database: 'none', connectionTimeoutMillis: 200 });
      slow.on('error', () => undefined);
      try {
        const error = await failureOf(() => slow.query('SELECT 1'));
        expect(mayHaveCommitted(error), error.message).to.equal(false);
      } finally {
        await slow.end();
        silent.close();
      }
    });

    it('counts a statement refused because the server was still starting up (57P03) as not sent', async function () {
      this.timeout(60_000);
      // A standby with no primary to follow and hot standby off stays in recovery and refuses every connection with
      // 57P03, as any server does while it starts up: the statement never reached a session.
      const standby = await PostgresServer.start({
        settings: { hot_standby: 'off' },
        from: async (data, tool) => {
          await tool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
          writeFileSync(join(data, 'standby.signal'), '');
        },
      }) as PostgresServer;
      const starting = new pg.Pool({ connectionString: standby.url, max: 1 });
      starting.on('error', () => undefined);
      try {
        const error = await failureOf(() => starting.query('INSERT INTO nowhere VALUES (1)'));
        expect((error as { code?: string }).code, error.message).to.equal('57P03');
        expect(mayHaveCommitted(error), error.message).to.equal(false);
      } finally {
        await starting.end();
        await standby.stop();
      }
    });

    it('counts a connection that ended with no word from the server, as node-postgres reports it, as maybe committed', () => {
      expect(mayHaveCommitted(new Error('Connection terminated unexpectedly'))).to.equal(true);
      expect(mayHaveCommitted(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).to.equal(true);
    });

    it('counts a statement whose values could not be serialised as not sent', async () => {
      const error = await failureOf(() => pool.query('SELECT $1::jsonb', [{ amount: 10n }]));
      expect(error).to.be.instanceOf(TypeError);
      expect(mayHaveCommitted(error), error.message).to.equal(false);
    });
  });
}
