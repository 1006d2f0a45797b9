/**
 * Queue mode on PostgreSQL when processes and the database die under load: two web instances and two workers as
 * real processes on one PostgreSQL, 2 000 onReceived calls; a web instance and a worker are SIGKILLed and started
 * again, and later the database is restarted as a crash would (`pg_ctl restart -m immediate`). Checked call by call:
 * every call answered 200 ran to completion, no call ran twice at once, and every call refused 503 never ran.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhookQueue, type WebhookQueue } from 'workflow-webhooks/queue';
import { POSTGRES, PostgresServer } from '../../support/postgres-server.js';
import { queueDrained } from '../../support/queue-drained.js';
import { Children, type Child } from '../../support/queue/children.js';
import { begunCalls, completedRuns, completions, overlappingRuns, waitForCompletions } from '../../support/queue/completions.js';
import { closeConnections, load, tally } from '../../support/queue/load.js';
import { countingLogger } from '../../support/queue/web.js';
import type { CompletionLine } from '../../support/queue/worker-entry.js';
import { findService, markNotRun } from '../../support/services.js';

const CALLS = 2000;
const IN_FLIGHT = 40;
/** A web instance and a worker are SIGKILLed (and started again) once this many calls were answered. */
const KILL_AT = 500;
/** Calls from this index on wait until the killed pair is back, so the restarted pair carries part of the load. */
const REJOIN_AT = 900;
/**
 * The database is restarted once this many calls were answered: only after the pair is back (a call past REJOIN_AT
 * was answered), so a web instance never starts against a database that is down.
 */
const RESTART_AT = 1200;
/** Calls from this index on wait until the database is up again: the end of the load meets it back. */
const BACK_AT = 1600;
/** Long enough that a loaded machine does not starve a live worker's lock renewal into a second run. */
const LOCK_MS = '4000';

if (findService(POSTGRES) === undefined) {
  markNotRun('queue mode on PostgreSQL when web instances, workers and the database crash', POSTGRES);
} else {
  describe('queue mode on PostgreSQL when a web instance, a worker and the database crash under load', function () {
    // 30-60 s on a quiet machine; the limit leaves room for a loaded one and the bounded waits below.
    this.timeout(300_000);
    let server: PostgresServer;
    let directory: string;
    let inspector: WebhookQueue | undefined;
    const children = new Children();
    const queueName = `pgcrash-${process.pid}`;

    before(async function () {
      this.timeout(60_000);
      server = await PostgresServer.start() as PostgresServer;
      directory = mkdtempSync(join(tmpdir(), 'queue-pgcrash-'));
    });
    after(async function () {
      this.timeout(30_000);
      await children.killAll();
      await inspector?.close();
      closeConnections();
      await server?.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    const web = (name: string): Promise<Child> => children.start('web', name, { DATABASE_URL: server.url, QUEUE_NAME: queueName, ENQUEUE_TIMEOUT_MS: '2000' });
    const worker = (name: string): Promise<Child> => children.start('worker', name, {
      DATABASE_URL: server.url, QUEUE_NAME: queueName, WORKER_NAME: name, COMPLETION_LOG: join(directory, `${name}.log`),
      WORK_MS: '20', CONCURRENCY: '10', LOCK_MS, STALLED_MS: '1000',
    });

    it('runs every call it answered 200, none twice at once, and none it refused 503', async () => {
      // One at a time first: the first to open the database creates the tables.
      const webA = await web('web-a');
      const [webB, workerA] = await Promise.all([web('web-b'), worker('worker-a'), worker('worker-b')]);
      const started = Date.now();
      const killedPort = webA.port as number;
      const live: number[] = [killedPort, webB.port as number];
      const killedAt = new Map<string, number>();
      let restarted: Promise<number> | undefined;
      let databaseBack: Promise<void> | undefined;
      let restartedAt: number | undefined;
      const logs = ['worker-a', 'worker-b', 'worker-a2'].map((name) => join(directory, `${name}.log`));

      const crash = async (): Promise<number> => {
        live.splice(live.indexOf(killedPort), 1);
        await Promise.all([webA.kill(), workerA.kill()]);
        killedAt.set('worker-a', Date.now());
        const [webA2] = await Promise.all([web('web-a2'), worker('worker-a2')]);
        live.push(webA2.port as number);
        return webA2.port as number;
      };
      const outcomes = await load({
        total: CALLS, prefix: 'pgcrash', inFlight: IN_FLIGHT,
        target: async (index) => {
          if (index >= REJOIN_AT) await restarted;
          if (index >= BACK_AT) await databaseBack;
          return live[index % live.length] as number;
        },
        onOutcome: (_outcome, answered) => {
          if (answered === KILL_AT) {
            restarted = crash();
            // Awaited once the load is done; until then a failed restart must not count as an unhandled rejection.
            restarted.catch(() => undefined);
          }
          if (answered === RESTART_AT) {
            restartedAt = Date.now();
            databaseBack = server.restartImmediately();
            databaseBack.catch(() => undefined);
          }
        },
      });
      const restartedPort = await restarted as number;
      await databaseBack;
      const loadMs = Date.now() - started;

      const accepted = outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.id);
      const missing = await waitForCompletions(logs, accepted, 90_000);
      // Jobs of calls cut off by the faults may still run: only a drained queue makes "never" and "not twice" final.
      inspector = createWebhookQueue({ connection: server.url, name: queueName, logger: countingLogger() });
      await inspector.ready();
      const queue = inspector.bullQueue;
      let drained = true;
      await queueDrained(inspector, 60_000).catch(() => { drained = false; });
      const counts = completions(logs);
      const runs = completedRuns(logs);
      const begun = begunCalls(logs);
      const overlaps = overlappingRuns(logs, killedAt);
      const failed = (await queue.getJobCounts('failed')).failed ?? 0;
      const refused = outcomes.filter((outcome) => outcome.status === 503);
      const refusedButRan = refused.filter((outcome) => begun.has(outcome.id)).map((outcome) => outcome.id);
      const afterRestart = outcomes.filter((outcome) => Number(outcome.id.slice('pgcrash-'.length)) >= BACK_AT);
      const perWorker: Record<string, number> = {};
      for (const run of runs) perWorker[run.worker] = (perWorker[run.worker] ?? 0) + 1;
      // Where a call that ran again (one run after the other) first completed: on the killed worker, or elsewhere.
      const againAfter: Record<string, number> = {};
      for (const [callId, count] of counts) {
        if (count < 2) continue;
        const first = runs.filter((run) => run.callId === callId).sort((a, b) => a.startedAt - b.startedAt)[0] as CompletionLine;
        againAfter[first.worker] = (againAfter[first.worker] ?? 0) + 1;
      }
      console.log(`      postgres crash: ${JSON.stringify({
        calls: CALLS, loadMs, drained, totalMs: Date.now() - started, answers: tally(outcomes),
        toRestartedWeb: outcomes.filter((outcome) => outcome.port === restartedPort).length,
        answeredAfterDatabaseBack: tally(afterRestart), databaseRestartedAtMs: (restartedAt ?? started) - started,
        answered200Lost: missing.length, ranTwiceAtOnce: overlaps.length, ranMoreThanOnce: [...counts.values()].filter((count) => count > 1).length, ranAgainFirstOn: againAfter,
        refused503ButRan: refusedButRan.length, failedJobs: failed, takenUpAgain: runs.filter((run) => run.attempt > 1).length, runsPerWorker: perWorker,
      })}`);

      expect(missing, 'calls answered 200 whose run never completed').to.deep.equal([]);
      expect(overlaps.map(({ callId, runs: pair }) => `${callId}: ${pair.map((run) => `${run.worker} ${run.startedAt}`).join(' and ')}`), 'calls that ran twice at once').to.deep.equal([]);
      expect(refusedButRan, 'calls refused 503 that ran').to.deep.equal([]);
      expect(children.unexpectedExits, 'web instances or workers that died by themselves').to.deep.equal([]);
      for (const outcome of outcomes) {
        if (outcome.status === 200) continue;
        if (outcome.status === undefined) {
          // Only the calls on the killed instance's connections may end without an answer, and none may hang.
          expect([outcome.port, outcome.error], `call ${outcome.id}`).to.satisfy(([port, error]: [number, string]) => port === killedPort && error !== 'HANG');
        } else {
          expect([outcome.status, outcome.code, outcome.retryAfter], `call ${outcome.id}`).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '2']);
        }
      }
      expect(drained, 'the queue drained (waiting, active, delayed, prioritized all 0)').to.equal(true);
      expect(failed).to.equal(0);
      // Most calls got through around the faults, the restarted instance takes calls as the others do, and the calls
      // after the database's restart are taken again without restarting anything.
      expect(accepted.length).to.be.above(CALLS / 2);
      expect(outcomes.filter((outcome) => outcome.port === restartedPort && outcome.status === 200).length).to.be.above(0);
      expect(afterRestart.filter((outcome) => outcome.status === 200).length, 'calls answered 200 once the database was back').to.be.above(0);
    });
  });
}
