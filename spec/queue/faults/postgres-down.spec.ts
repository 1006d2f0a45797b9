/**
 * Queue mode on PostgreSQL when the database is gone (stopped as a crash would) and then back (started again on the
 * same port, its data kept): calls are refused 503 QUEUE_UNAVAILABLE at once rather than left hanging, none of them
 * runs later, and once the database is back the web instance and the worker take and run calls again by themselves.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhookQueue, type WebhookQueue } from 'workflow-webhooks/queue';
import { POSTGRES, PostgresServer } from '../../support/postgres-server.js';
import { queueDrained } from '../../support/queue-drained.js';
import { Children } from '../../support/queue/children.js';
import { begunCalls, waitForCompletions } from '../../support/queue/completions.js';
import { callUntilAccepted, closeConnections, load, tally, type Outcome } from '../../support/queue/load.js';
import { countingLogger, startWeb, type RunningWeb } from '../../support/queue/web.js';
import { findService, markNotRun } from '../../support/services.js';

const ENQUEUE_TIMEOUT_MS = 800;
/**
 * A call of the outage unanswered this long after it was sent is recorded as a hang (no status), which fails the
 * spec: a refusal is due after ENQUEUE_TIMEOUT_MS; only a call left waiting, or a wait for the database itself, comes near.
 */
const HANG_AFTER_MS = ENQUEUE_TIMEOUT_MS + 4000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

if (findService(POSTGRES) === undefined) {
  markNotRun('queue mode on PostgreSQL while the database is down', POSTGRES);
} else {
  describe('queue mode on PostgreSQL while the database is down and after it is back', function () {
    this.timeout(120_000);
    let server: PostgresServer;
    let directory: string;
    let web: RunningWeb;
    let lookout: WebhookQueue | undefined;
    let log: string;
    const children = new Children();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => { unhandled.push(reason); };
    const queueName = `pgdown-${process.pid}`;
    /** The calls refused during the outage: none may ever run. */
    const refused: Outcome[] = [];
    const target = (): number => web.port;

    before(async function () {
      this.timeout(90_000);
      process.on('unhandledRejection', onUnhandled);
      server = await PostgresServer.start() as PostgresServer;
      directory = mkdtempSync(join(tmpdir(), 'queue-pgdown-'));
      log = join(directory, 'worker.log');
      // The web instance first: the first to open the database creates the tables.
      web = await startWeb({ databaseUrl: server.url, queueName, enqueueTimeoutMs: ENQUEUE_TIMEOUT_MS });
      await children.start('worker', 'worker', { DATABASE_URL: server.url, QUEUE_NAME: queueName, COMPLETION_LOG: log, WORK_MS: '2' });
    });
    after(async function () {
      this.timeout(30_000);
      await children.killAll();
      await lookout?.close();
      await web?.close();
      closeConnections();
      await server?.stop();
      if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
      process.off('unhandledRejection', onUnhandled);
    });

    it('refuses calls 503 QUEUE_UNAVAILABLE with Retry-After within the enqueue timeout while the database is down, and never hangs', async () => {
      const before = await load({ total: 50, prefix: 'before', inFlight: 10, target });
      expect(tally(before)).to.deep.equal({ 200: 50 });
      expect(await waitForCompletions([log], before.map((outcome) => outcome.id), 30_000)).to.deep.equal([]);

      await server.stopImmediately();
      // Right after the crash, and again once the connections are deep in their reconnection attempts.
      const first = await load({ total: 30, prefix: 'down-early', inFlight: 10, target, hangAfterMs: HANG_AFTER_MS });
      await sleep(2000);
      const later = await load({ total: 30, prefix: 'down-later', inFlight: 10, target, hangAfterMs: HANG_AFTER_MS });
      const outcomes = [...first, ...later];
      refused.push(...outcomes.filter((outcome) => outcome.status === 503));
      console.log(`      postgres down: answers ${JSON.stringify(tally(outcomes))}; slowest answer ${Math.max(...outcomes.map((outcome) => outcome.ms))} ms, ` +
        `fastest ${Math.min(...outcomes.map((outcome) => outcome.ms))} ms`);

      for (const outcome of outcomes) {
        expect([outcome.status, outcome.code, outcome.retryAfter, outcome.error], `call ${outcome.id}`).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '2', undefined]);
      }
      expect(unhandled).to.deep.equal([]);
      expect(children.unexpectedExits).to.deep.equal([]);
    });

    it('takes and runs calls again once the database is back, without restarting the web instance or the worker, and never runs a refused call', async () => {
      // Down since the test before, or taken down here when this test runs alone.
      await server.stopImmediately().catch(() => undefined);
      await sleep(1000);
      await server.startAgain();
      // A sender retrying its 503 meets refusals while the connections come back, never a hang or a dropped connection.
      const retries = await callUntilAccepted(web.port, 'back', 30_000);
      expect(retries.at(-1)?.status, 'a call answered 200 within 30 s of the start').to.equal(200);
      for (const outcome of retries.slice(0, -1)) {
        expect([outcome.status, outcome.code, outcome.retryAfter], `call ${outcome.id}`).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '2']);
      }
      refused.push(...retries.filter((outcome) => outcome.status === 503));
      const after = await load({ total: 200, prefix: 'after', inFlight: 10, target });
      expect(tally(after)).to.deep.equal({ 200: 200 });
      const missing = await waitForCompletions([log], after.map((outcome) => outcome.id), 60_000);
      // "Never ran" is final once no job is left to run.
      lookout = createWebhookQueue({ connection: server.url, name: queueName, logger: countingLogger() });
      await lookout.ready();
      await queueDrained(lookout, 60_000);
      const begun = begunCalls([log]);
      const refusedButRan = refused.filter((outcome) => begun.has(outcome.id)).map((outcome) => outcome.id);
      console.log(`      postgres back: answered 200 after ${retries.length - 1} refusals; answered 200 and lost: ${missing.length} of ${after.length}; ` +
        `refused 503 and ran: ${refusedButRan.length} of ${refused.length}`);
      expect(missing, 'calls answered 200 whose run never completed').to.deep.equal([]);
      expect(refusedButRan, 'calls refused 503 that ran').to.deep.equal([]);
      expect(unhandled).to.deep.equal([]);
      expect(children.unexpectedExits).to.deep.equal([]);
    });
  });
}
