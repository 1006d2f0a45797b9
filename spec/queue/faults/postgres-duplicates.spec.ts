/**
 * Queue mode on PostgreSQL under a sender's concurrent retries: a web instance and two workers as real processes on
 * one PostgreSQL, 20 bursts of 50 calls at once that share one Idempotency-Key each, to a lastNode workflow. Every
 * caller of a burst must get the one run's answer, the processes must live through it, and once everything is
 * answered the database must be as quiet as before the bursts: no call left behind still looking at its job.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createWebhookQueue, type WebhookQueue } from 'workflow-webhooks/queue';
import { POSTGRES, PostgresServer } from '../../support/postgres-server.js';
import { queueDrained } from '../../support/queue-drained.js';
import { Children, type Child } from '../../support/queue/children.js';
import { completedRuns } from '../../support/queue/completions.js';
import { countingLogger, ONCE_PATH } from '../../support/queue/web.js';
import { findService, markNotRun } from '../../support/services.js';

const BURSTS = 20;
const PER_BURST = 50;
/** Each idle count lasts this long: whole periods of the workers' idle checks, and ten of a waiting call's looks. */
const IDLE_WINDOW_MS = 10_000;
/**
 * How many statements the window after may have beyond the window before: each worker's idle checks (a stalled-job
 * check every second, four statements every 5 s when no job comes) drift against the windows, so one of each may
 * fall in one window and not the other. A call left behind looks at its job every second, 10 looks of at least two
 * statements in a window: more than this alone.
 */
const ALLOWANCE = 10;
/**
 * The sweep of expired rows each process runs every 30 s (a transaction that takes the sweep's advisory lock and
 * deletes from the library's tables): housekeeping on a clock of its own, the same however many calls came, which
 * falls in one window and not in the other. Counted apart, and printed.
 */
const SWEEP = `query IN ('BEGIN', 'COMMIT') OR query LIKE 'SELECT pg_try_advisory_xact_lock(%' OR query LIKE 'DELETE FROM workflow_webhooks.queue\\_% WHERE expires_at <= $1'`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer { status: number; body: string }

async function post(port: number, key: string, body: string): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${port}${ONCE_PATH}`, {
    method: 'POST', body, headers: { 'content-type': 'application/json', 'idempotency-key': key },
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.text() };
}

if (findService(POSTGRES) === undefined) {
  markNotRun('queue mode on PostgreSQL under concurrent duplicates', POSTGRES);
} else {
  describe('queue mode on PostgreSQL under concurrent duplicates', function () {
    this.timeout(240_000);
    let server: PostgresServer;
    let directory: string;
    let stats: pg.Client | undefined;
    const children = new Children();
    const queueName = `pgdups-${process.pid}`;
    /** The spec's own view of the queue, to see when it holds no job left to run. */
    let lookout: WebhookQueue | undefined;

    before(async function () {
      this.timeout(60_000);
      server = await PostgresServer.start() as PostgresServer;
      directory = mkdtempSync(join(tmpdir(), 'queue-pgdups-'));
      // pg_stat_statements counts each statement as it ends, in shared memory: pg_stat_database's counts reach it only
      // when a backend reports, which an idle pooled connection may put off until it closes. It loads at start.
      const setup = new pg.Client({ connectionString: server.url });
      await setup.connect();
      await setup.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
      await setup.end();
      await server.restartImmediately();
      stats = new pg.Client({ connectionString: server.url });
      stats.on('error', () => undefined);
      await stats.connect();
      await stats.query('CREATE EXTENSION pg_stat_statements');
    });
    after(async function () {
      this.timeout(30_000);
      await lookout?.close();
      await children.killAll();
      await stats?.end().catch(() => undefined);
      await server?.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    interface IdleCount { statements: number; sweeps: number }

    /** The statements the queue's processes ran within IDLE_WINDOW_MS, the sweeps' apart (this count's own left out). */
    async function idleStatements(): Promise<IdleCount> {
      const count = async (): Promise<IdleCount> => {
        const found = await (stats as pg.Client).query(`SELECT coalesce(sum(calls) FILTER (WHERE NOT (${SWEEP})), 0) AS statements,
          coalesce(sum(calls) FILTER (WHERE ${SWEEP}), 0) AS sweeps FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'`);
        return { statements: Number(found.rows[0]?.statements), sweeps: Number(found.rows[0]?.sweeps) };
      };
      const first = await count();
      await sleep(IDLE_WINDOW_MS);
      const last = await count();
      return { statements: last.statements - first.statements, sweeps: last.sweeps - first.sweeps };
    }
    const perSecond = (count: IdleCount): IdleCount => ({ statements: count.statements / (IDLE_WINDOW_MS / 1000), sweeps: count.sweeps / (IDLE_WINDOW_MS / 1000) });

    it('answers every caller of a burst with the one run\'s answer, survives 20 bursts, and leaves the database as idle as before', async () => {
      const log = (name: string): string => join(directory, `${name}.log`);
      const worker = (name: string): Promise<Child> => children.start('worker', name, {
        DATABASE_URL: server.url, QUEUE_NAME: queueName, WORKER_NAME: name, COMPLETION_LOG: log(name), WORK_MS: '5', CONCURRENCY: '10',
      });
      // The web instance first, alone: the first to open the database creates the tables.
      const web = await children.start('web', 'web', { DATABASE_URL: server.url, QUEUE_NAME: queueName, IDEMPOTENT: '1' });
      await Promise.all([worker('worker-a'), worker('worker-b')]);
      const port = web.port as number;
      lookout = createWebhookQueue({ connection: server.url, name: queueName, logger: countingLogger() });
      await lookout.ready();
      // The start-up's last statements (the workers' first idle checks) are over.
      await sleep(3000);
      const idleBefore = await idleStatements();

      const bursts: { key: string; answers: Answer[] }[] = [];
      for (let burst = 0; burst < BURSTS; burst += 1) {
        const key = `delivery-${burst}`;
        const body = JSON.stringify({ order: burst });
        const answers = await Promise.all(Array.from({ length: PER_BURST }, () => post(port, key, body).catch((error: Error) => ({ status: 0, body: error.message }))));
        bursts.push({ key, answers });
      }
      // "One run per burst" is final only once no job is left to run: a duplicate could still be waiting or running.
      await queueDrained(lookout, 60_000);
      const runs = completedRuns([log('worker-a'), log('worker-b')]);
      // Longer than a waiting call's one look per second: what remains is idle, or a look left behind.
      await sleep(3000);
      const idleAfter = await idleStatements();
      const statuses: Record<string, number> = {};
      for (const answer of bursts.flatMap(({ answers }) => answers)) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      console.log(`      postgres duplicates: ${JSON.stringify({
        bursts: BURSTS, callsPerBurst: PER_BURST, answers: statuses, runs: runs.length,
        burstsAnsweredAlike: bursts.filter(({ answers }) => new Set(answers.map((answer) => answer.body)).size === 1).length,
        idleStatementsPerSecondBefore: perSecond(idleBefore), idleStatementsPerSecondAfter: perSecond(idleAfter),
      })}`);

      expect(children.unexpectedExits, 'no web instance or worker died').to.deep.equal([]);
      for (const { key, answers } of bursts) {
        expect(answers.map((answer) => answer.status), key).to.deep.equal(Array(PER_BURST).fill(200));
        expect(new Set(answers.map((answer) => answer.body)).size, `${key}: one answer for all`).to.equal(1);
      }
      expect(runs, 'one run per burst').to.have.length(BURSTS);
      expect(new Set(runs.map((run) => run.jobId)).size).to.equal(BURSTS);
      // Each burst's answer is its own run's: the run's first caller's call id, different for every burst.
      const answered = bursts.map(({ answers }) => (JSON.parse(answers[0]?.body ?? '{}') as { done?: string }).done);
      expect(new Set(answered).size).to.equal(BURSTS);
      expect(runs.map((run) => run.callId)).to.have.members(answered);
      expect(idleAfter.statements, `statements in ${IDLE_WINDOW_MS} ms once idle, after the bursts (before them: ${idleBefore.statements})`).to.be.at.most(idleBefore.statements + ALLOWANCE);
    });
  });
}
