import { expect } from 'chai';
import pg from 'pg';
import { migrate } from 'workflow-webhooks/postgres';
import { PostgresLink, type PostgresPoolLike } from '../../lib/postgres/pool.js';
import { registrySweep } from '../../lib/postgres/sweeper.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { freshName } from '../support/queue/postgres-link.js';
import { findService, markNotRun } from '../support/services.js';

/** The registry's tables that expire by time, and how a row of each is written (its id, then its time). */
const ROWS: Array<[table: string, insert: string]> = [
  ['listens', `INSERT INTO {S}.listens VALUES ($1, $1, '{}', $2)`],
  ['relays', `INSERT INTO {S}.relays VALUES ($1, 'step', '{}', $2)`],
  ['message_ids', `INSERT INTO {S}.message_ids VALUES ($1, $2)`],
  ['rate_budgets', `INSERT INTO {S}.rate_budgets VALUES ($1, 1, $2)`],
];

if (findService(POSTGRES) === undefined) {
  markNotRun('the sweep of the PostgreSQL registry\'s rows', POSTGRES);
} else {
  describe('the sweep of the PostgreSQL registry\'s rows', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    let pool: pg.Pool;
    const schema = freshName('registry_sweep');

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 4 });
      await migrate({ connectionString: server.url, schema });
    });
    after(async () => { await pool?.end(); });

    const counts = async (): Promise<number[]> => Promise.all(ROWS.map(async ([table]) =>
      (await pool.query(`SELECT count(*)::int AS n FROM ${schema}.${table}`)).rows[0].n as number));

    it('removes listens, relays, message ids and rate budgets a minute past their time, keeps the rest, one sweeper at a time', async () => {
      const now = Number((await pool.query(`SELECT ${schema}.now_ms() AS now`)).rows[0].now);
      for (const [, insert] of ROWS) {
        const sql = insert.replaceAll('{S}', schema);
        await pool.query(sql, ['long-gone', now - 61_000]);
        await pool.query(sql, ['just-ended', now - 1000]);
        await pool.query(sql, ['standing', now + 60_000]);
      }
      expect(await counts()).to.deep.equal([3, 3, 3, 3]);
      const sweep = registrySweep(new PostgresLink(() => Promise.resolve(pool as unknown as PostgresPoolLike), 5000), schema, () => undefined);
      // Another instance sweeping holds the lock: this one skips.
      const other = await pool.connect();
      try {
        await other.query('BEGIN');
        await other.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workflow-webhooks:${schema}:sweep`]);
        expect(await sweep.sweep()).to.equal(undefined);
        await other.query('ROLLBACK');
      } finally {
        other.release();
      }
      expect(await sweep.sweep()).to.equal(4);
      expect(await counts()).to.deep.equal([2, 2, 2, 2]);
    });
  });
}
