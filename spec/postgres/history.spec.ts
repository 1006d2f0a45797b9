/**
 * PostgresHistoryStore on a real PostgreSQL server: the history store contract (read back from its table directly,
 * and through a stop and start of the server), through PgBouncer in transaction mode, the statements a batch costs,
 * bodies jsonb cannot hold, and a store that starts while the database is down.
 */
import { expect } from 'chai';
import pg from 'pg';
import { PostgresHistoryStore } from 'workflow-webhooks/postgres';
import type { HistoryRecord } from '../../lib/core/history.js';
import { describeHistoryStoreContract, historyRecordOf } from '../support/history-contract/index.js';
import { PGBOUNCER, PgBouncer } from '../support/pgbouncer.js';
import { POSTGRES, PostgresServer } from '../support/postgres-server.js';
import { postgresHistoryHarness } from '../support/postgres/history-harness.js';
import { findService, markNotRun } from '../support/services.js';

const TITLE = 'PostgresHistoryStore';

/** A pool whose connections keep the text of every statement they send, in order. */
function countingPool(url: string): { pool: pg.Pool; statements: string[] } {
  const statements: string[] = [];
  class CountingClient extends pg.Client {
    override query(...args: unknown[]): never {
      if (typeof args[0] === 'string') statements.push(args[0]);
      return (pg.Client.prototype.query as (...given: unknown[]) => never).apply(this, args);
    }
  }
  const pool = new pg.Pool({ connectionString: url, max: 4, Client: CountingClient });
  pool.on('error', () => undefined);
  return { pool, statements };
}

if (findService(POSTGRES) === undefined) {
  markNotRun(`${TITLE} keeps the history store contract`, POSTGRES);
} else {
  describe(`${TITLE} on a real PostgreSQL server`, function () {
    this.timeout(60_000);
    // A server of its own: the outage cases stop it.
    let server: PostgresServer;
    let pool: pg.Pool;
    before(async function () {
      this.timeout(120_000);
      server = await PostgresServer.start() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 10 });
      pool.on('error', () => undefined);
    });
    after(async () => {
      await pool?.end();
      await server?.stop();
    });

    const direct = postgresHistoryHarness(() => ({ pool }), () => pool, 'history', () => server);
    describeHistoryStoreContract(TITLE, () => direct);

    if (findService(PGBOUNCER) === undefined) markNotRun(`${TITLE} through PgBouncer in transaction mode`, PGBOUNCER);
    else {
      describe('through PgBouncer in transaction mode, with directUrl for the migration', () => {
        let bouncer: PgBouncer | undefined;
        let pooled: pg.Pool | undefined;
        before(async function () {
          this.timeout(30_000);
          bouncer = await PgBouncer.start(server, 'transaction');
          pooled = new pg.Pool({ connectionString: bouncer?.url, max: 5 });
          pooled.on('error', () => undefined);
        });
        after(async () => {
          await pooled?.end();
          await bouncer?.stop();
        });

        const bounced = postgresHistoryHarness(() => ({ pool: pooled as pg.Pool, directUrl: server.url }), () => pool, 'history_bounced');
        describeHistoryStoreContract(`${TITLE} through PgBouncer in transaction mode`, () => bounced);
      });
    }

    it('appends 1 000 calls in batches of 200, as the history writer sends them, in 5 INSERT statements and at most 20 statements in all', async () => {
      const { pool: counted, statements } = countingPool(server.url);
      const store = new PostgresHistoryStore({ pool: counted, schema: `history_${process.pid}_counted` });
      try {
        // The first use migrates the schema: not a cost of each batch.
        await store.find({ limit: 1 });
        statements.length = 0;
        const records = Array.from({ length: 1000 }, (_, index) => historyRecordOf(index + 1));
        for (let batch = 0; batch < 5; batch += 1) await store.append(records.slice(batch * 200, batch * 200 + 200));
        expect(statements.filter((sql) => /^\s*INSERT\b/i.test(sql)), 'INSERT statements').to.have.length(5);
        expect(statements.length, 'statements in all, self-pruning included (the goal: at most 1 per 50 calls)').to.be.at.most(20);
        expect((await pool.query(`SELECT count(*)::int AS n FROM history_${process.pid}_counted.history_calls`)).rows[0]?.n).to.equal(1000);
      } finally {
        await store.close();
        await counted.end();
      }
    });

    it('keeps only the newest maxEntries calls after appends alone, with no prune() call', async () => {
      const schema = `history_${process.pid}_trimmed`;
      const store = new PostgresHistoryStore({ pool, schema, maxEntries: 5 });
      try {
        const records = Array.from({ length: 10 }, (_, index) => historyRecordOf(index + 1));
        await store.append(records.slice(0, 8));
        await store.append(records.slice(8));
        const held = await pool.query(`SELECT id FROM ${schema}.history_calls ORDER BY id`);
        expect(held.rows.map((row: { id: string }) => row.id)).to.deep.equal(records.slice(5).map((record) => record.id));
      } finally {
        await store.close();
      }
    });

    it('neither finds, gives back nor claims a call past maxAgeMs that no prune removed yet', async () => {
      const store = new PostgresHistoryStore({ pool, schema: `history_${process.pid}_aged`, maxAgeMs: 60_000 });
      try {
        const fresh = historyRecordOf(1, { at: Date.now() });
        // The first append prunes; the next one, a moment later, does not (nothing is due), so the old call stays held.
        await store.append([fresh]);
        const expired = historyRecordOf(2, { at: Date.now() - 120_000 });
        await store.append([expired]);
        expect((await store.find({ limit: 10 })).records).to.deep.equal([fresh]);
        expect((await store.find({ requestId: expired.requestId, limit: 10 })).records).to.deep.equal([]);
        expect(await store.get(expired.id)).to.equal(undefined);
        expect(await store.claimReplay(expired.id, true)).to.deep.equal({ outcome: 'missing' });
      } finally {
        await store.close();
      }
    });

    it('finds a call by its body when the body holds what jsonb cannot (U+0000), and gives it back exactly', async () => {
      const store = new PostgresHistoryStore({ pool, schema: `history_${process.pid}_nul` });
      try {
        const withNul = historyRecordOf(1, {
          data: { clear: { query: {}, headers: {}, params: {}, bodyKept: 'whole', body: { note: 'a\u0000b', order: { status: 'paid' } }, bodySize: 40, files: [] } },
        });
        const other = historyRecordOf(2);
        await store.append([withNul, other]);
        const paid = await store.find({ body: { pointer: '/order/status', equals: 'paid' }, limit: 10 });
        expect(paid.records).to.deep.equal([other, withNul]);
        const open = await store.find({ body: { pointer: '/order/status', equals: 'open' }, limit: 10 });
        expect(open.records).to.deep.equal([]);
        const byNul = await store.find({ body: { pointer: '/note', equals: 'a\u0000b' }, limit: 10 });
        expect(byNul.records).to.deep.equal([withNul]);
      } finally {
        await store.close();
      }
    });

    it('refuses options it cannot use when made, naming the option', () => {
      expect(() => new PostgresHistoryStore({} as never)).to.throw(TypeError, /option pool or connectionString is required/);
      expect(() => new PostgresHistoryStore({ pool, maxEntries: 0 })).to.throw(TypeError, /maxEntries must be a whole number, 1 or more/);
      expect(() => new PostgresHistoryStore({ pool, maxAgeMs: 10 })).to.throw(TypeError, /maxAgeMs must be a whole number of milliseconds, 1000 or more/);
      expect(() => new PostgresHistoryStore({ pool, schema: 'Bad-Name' })).to.throw(TypeError, /option schema must be lower-case letters/);
      expect(() => new PostgresHistoryStore({ pool, directUrl: '' })).to.throw(TypeError, /option directUrl must be a non-empty connection string/);
      expect(new PostgresHistoryStore({ pool }).retention).to.deep.equal({ maxAgeMs: 14 * 24 * 3_600_000, maxEntries: 10_000 });
    });
  });

  describe(`${TITLE} made while the database is down`, function () {
    this.timeout(60_000);
    let server: PostgresServer;
    before(async function () {
      this.timeout(120_000);
      server = await PostgresServer.start() as PostgresServer;
      await server.stopImmediately();
    });
    after(async () => { await server?.stop(); });

    it('refuses with HISTORY_UNAVAILABLE and Retry-After while it is away, and keeps calls once it is back, from its own pool', async () => {
      const store = new PostgresHistoryStore({ connectionString: server.url, schema: 'history_down', commandTimeoutMs: 2000 });
      try {
        const refused = await store.append([historyRecordOf(1)]).then(() => undefined, (error: unknown) => error as { code?: string; headers?: Record<string, string> });
        expect([refused?.code, refused?.headers?.['retry-after']]).to.deep.equal(['HISTORY_UNAVAILABLE', '2']);
        await server.startAgain();
        const record: HistoryRecord = historyRecordOf(2);
        const until = Date.now() + 10_000;
        let kept = false;
        while (!kept && Date.now() < until) {
          kept = await store.append([record]).then(() => true, () => false);
          if (!kept) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(await store.get(record.id)).to.deep.equal(record);
      } finally {
        await store.close();
      }
      const closed = await store.find({ limit: 1 }).then(() => undefined, (error: unknown) => error as Error & { code?: string });
      expect([closed?.code, closed?.message]).to.deep.equal(['HISTORY_UNAVAILABLE', 'The PostgresHistoryStore was closed.']);
    });
  });
}
