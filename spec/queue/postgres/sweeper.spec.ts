import { expect } from 'chai';
import pg from 'pg';
import { postgresBinaryStore } from 'workflow-webhooks/queue';
import { PostgresLink, type PostgresPoolLike } from '../../../lib/postgres/pool.js';
import { queueSweep } from '../../../lib/queue/postgres/sweeper.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { freshName, openSpecLink, type SpecLink } from '../../support/queue/postgres-link.js';
import { findService, markNotRun } from '../../support/services.js';
import { closeAll } from '../../support/close-all.js';

const TABLES = ['queue_claims', 'queue_refused', 'queue_replies', 'queue_files', 'queue_file_chunks'];

if (findService(POSTGRES) === undefined) {
  markNotRun('the sweep of queue mode\'s PostgreSQL rows', POSTGRES);
} else {
  describe('the sweep of queue mode\'s PostgreSQL rows', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    let pool: pg.Pool;
    let opened: SpecLink;
    const schema = freshName('queue_sweep');
    const counts = async (): Promise<number[]> => Promise.all(TABLES.map(async (table) =>
      (await pool.query(`SELECT count(*)::int AS n FROM ${schema}.${table}`)).rows[0].n as number));

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 4 });
      opened = await openSpecLink(server.url, schema);
    });
    after(() => closeAll(() => opened?.close(), () => pool?.end()));

    it('removes claims, refusal marks, unread replies and files once expired, nothing that still stands, one sweeper at a time', async () => {
      const { link, clock } = opened;
      const start = clock.now;
      await link.admit({ workflowId: 'wf', jobId: 'job', maxQueued: undefined, track: false, staleMs: 1000, fingerprint: 'f', storeId: 's', claimMs: 1000 });
      link.markRefused('s', 1000);
      await link.publish(link.replyChannel('nobody listens'), 'x'.repeat(20_000));
      const store = postgresBinaryStore({ ttlMs: 1000 });
      store.attach?.(link.binaryHost);
      await store.put({ data: Buffer.alloc(300 * 1024) }, 300 * 1024);
      for (let tries = 0; (await counts())[1] === 0 && tries < 200; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await counts()).to.deep.equal([1, 1, 1, 1, 2]);

      let now = start;
      const sweeper = queueSweep(new PostgresLink(() => Promise.resolve(pool as unknown as PostgresPoolLike), 5000), schema, () => now, () => undefined);
      expect(await sweeper.sweep()).to.equal(0);
      expect(await counts()).to.deep.equal([1, 1, 1, 1, 2]);
      // Another process sweeping holds the lock: this one skips.
      const other = await pool.connect();
      try {
        await other.query('BEGIN');
        await other.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workflow-webhooks:${schema}:queue-sweep`]);
        now = start + 11 * 60_000;
        expect(await sweeper.sweep()).to.equal(undefined);
        await other.query('ROLLBACK');
      } finally {
        other.release();
      }
      expect(await sweeper.sweep()).to.equal(6);
      expect(await counts()).to.deep.equal([0, 0, 0, 0, 0]);
    });
  });
}
