/**
 * What the request path writes to the library's own PostgreSQL tables keeps a NUL character (U+0000) as it was: a
 * wait's stored state and a call log entry's path and error are JSON text there, never jsonb, so a NUL is neither an
 * outage nor a lost entry (BullMQ's jsonb job table is spec/queue/nul-bytes.spec.ts's).
 */
import { expect } from 'chai';
import pg from 'pg';
import { PostgresCallLog, PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { callOf } from '../support/call-log-contract/index.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';

const NUL = 'a\u0000b';

if (findService(POSTGRES) === undefined) {
  markNotRun('a NUL character in the library\'s PostgreSQL tables', POSTGRES);
} else {
  describe('a NUL character in the library\'s PostgreSQL tables', function () {
    this.timeout(30_000);
    let server: PostgresServer;
    let pool: pg.Pool;
    const closers: Array<() => Promise<unknown>> = [];
    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 4 });
      pool.on('error', () => undefined);
    });
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    });
    after(async () => { await pool?.end(); });

    it('keeps a wait whose stored state holds a NUL, and gives it back as it was stored', async () => {
      const registry = new PostgresWebhookRegistry({ pool, schema: `nul_waits_${process.pid}` });
      closers.push(() => registry.close());
      await registry.ready();
      const entry = {
        waitId: `wait-${process.pid}`, status: 'waiting' as const, expiresAt: Date.now() + 60_000, workflowId: NUL, nodeName: 'Wait',
        mode: 'production' as const, startedAt: Date.now(), form: 'suspended' as const, state: { [NUL]: NUL },
      };
      expect(await registry.putWait(entry)).to.equal(true);
      const stored = await registry.getWait(entry.waitId);
      expect(stored?.state).to.deep.equal({ [NUL]: NUL });
      expect(stored?.workflowId).to.equal(NUL);
    });

    it('keeps a call log entry whose path and message hold a NUL, listed and heard as it was recorded', async () => {
      const log = new PostgresCallLog({ pool, schema: `nul_calls_${process.pid}`, capacity: 10, onError: () => undefined });
      closers.push(() => log.close());
      const heard = new Promise<unknown>((resolve) => { log.subscribe(resolve); });
      await log.subscribed();
      const call = { ...callOf(1), path: `/webhook/${NUL}`, message: `failed: ${NUL}` };
      await log.append(call);
      expect(await heard).to.deep.equal(call);
      expect(await log.recent()).to.deep.equal([call]);
    });
  });
}
