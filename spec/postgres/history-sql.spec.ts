/**
 * The batch PostgresHistoryStore adds in one statement, sent as one `json` parameter (history-sql.ts): every value a
 * column arrays parameter took still goes in, half of a surrogate pair in a filtered field included (PostgreSQL's
 * json refuses its `\u` escape), and the call reads back exactly.
 */
import { expect } from 'chai';
import pg from 'pg';
import { PostgresHistoryStore } from 'workflow-webhooks/postgres';
import { historyRecordOf } from '../support/history-contract/index.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';

const TITLE = 'PostgresHistoryStore\'s batch of calls';

if (findService(POSTGRES) === undefined) {
  markNotRun(TITLE, POSTGRES);
} else {
  describe(TITLE, function () {
    this.timeout(60_000);
    let pool: pg.Pool | undefined;
    let store: PostgresHistoryStore | undefined;
    before(async function () {
      this.timeout(120_000);
      const server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 2 });
      pool.on('error', () => undefined);
    });
    after(async () => {
      await store?.close();
      await pool?.end();
    });

    it('keeps calls whose filtered fields hold half of a surrogate pair, finds them by those fields, and gives them back exactly', async () => {
      store = new PostgresHistoryStore({ pool: pool as pg.Pool, schema: `history_sql_${process.pid}` });
      const lone = historyRecordOf(1, { requestId: 'req-\uD800-lone', workflowId: 'wf-\uDC00', code: 'CODE_\uD83D' });
      const pair = historyRecordOf(2, { requestId: 'req-\uD83D\uDE00-pair' });
      await store.append([lone, pair]);
      expect((await store.find({ requestId: lone.requestId, limit: 10 })).records).to.deep.equal([lone]);
      expect((await store.find({ workflowId: lone.workflowId, limit: 10 })).records).to.deep.equal([lone]);
      expect((await store.find({ requestId: pair.requestId, limit: 10 })).records).to.deep.equal([pair]);
      expect(await store.get(lone.id)).to.deep.equal(lone);
    });
  });
}
