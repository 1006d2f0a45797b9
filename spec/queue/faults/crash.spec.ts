/**
 * Queue mode when processes die under load: two web instances and two workers as real processes on one Redis,
 * 5 000 onReceived calls, and half-way one worker and one web instance are SIGKILLed and started again. What a 200
 * promises is checked call by call: every call answered 200 ran to completion on some worker.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhookQueue, type WebhookQueue } from 'workflow-webhooks/queue';
import { Children, type Child } from '../../support/queue/children.js';
import { completedRuns, completions, eventually, waitForCompletions } from '../../support/queue/completions.js';
import { closeConnections, load, tally } from '../../support/queue/load.js';
import { countingLogger } from '../../support/queue/web.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';

const CALLS = 5000;
const IN_FLIGHT = 50;
/** The faults strike once this many calls were answered. */
const KILL_AT = 2500;
/**
 * Calls from this index on wait until the killed web instance and worker are back: on a fast machine the load would
 * otherwise be over before they are, and the restarted pair must carry part of it.
 */
const REJOIN_AT = 3500;

if (findService(REDIS) === undefined) {
  markNotRun('queue mode when web instances and workers are killed', REDIS);
} else {
  describe('queue mode when a web instance and a worker are killed under load', function () {
    // The run takes 10-20 s; the limit leaves room for a slow machine and the bounded waits below.
    this.timeout(90_000);
    let server: RedisServer;
    let directory: string;
    let inspector: WebhookQueue | undefined;
    const children = new Children();
    const queueName = `crash-${process.pid}`;

    before(async function () {
      this.timeout(30_000);
      server = await RedisServer.start() as RedisServer;
      directory = mkdtempSync(join(tmpdir(), 'queue-crash-'));
    });
    after(async function () {
      this.timeout(30_000);
      await children.killAll();
      await inspector?.close();
      closeConnections();
      await server?.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    const web = (name: string): Promise<Child> => children.start('web', name, { REDIS_URL: server.url, QUEUE_NAME: queueName, ENQUEUE_TIMEOUT_MS: '2000' });
    const worker = (name: string): Promise<Child> => children.start('worker', name, {
      REDIS_URL: server.url, QUEUE_NAME: queueName, WORKER_NAME: name, COMPLETION_LOG: join(directory, `${name}.log`), WORK_MS: '5', CONCURRENCY: '10', LOCK_MS: '2000', STALLED_MS: '1000',
    });

    it('runs every call it answered 200 at least once, and only calls cut off by the crash go unanswered', async () => {
      const [webA, webB, workerA] = await Promise.all([web('web-a'), web('web-b'), worker('worker-a'), worker('worker-b')]);
      const started = Date.now();
      const killedPort = webA.port as number;
      // Calls go round the web instances alive; the killed one leaves the rotation the moment it is killed.
      const live: number[] = [killedPort, webB.port as number];
      let restarted: Promise<number> | undefined;
      const logs = ['worker-a', 'worker-b', 'worker-a2'].map((name) => join(directory, `${name}.log`));

      const crash = async (): Promise<number> => {
        live.splice(live.indexOf(killedPort), 1);
        await Promise.all([webA.kill(), workerA.kill()]);
        const [webA2] = await Promise.all([web('web-a2'), worker('worker-a2')]);
        live.push(webA2.port as number);
        return webA2.port as number;
      };
      const outcomes = await load({
        total: CALLS, prefix: 'crash', inFlight: IN_FLIGHT,
        target: async (index) => {
          if (index >= REJOIN_AT) await restarted;
          return live[index % live.length] as number;
        },
        onOutcome: (_outcome, answered) => {
          if (answered !== KILL_AT) return;
          restarted = crash();
          // Awaited once the load is done; until then a failed restart must not count as an unhandled rejection.
          restarted.catch(() => undefined);
        },
      });
      const restartedPort = await restarted as number;
      const loadMs = Date.now() - started;

      const accepted = outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.id);
      const missing = await waitForCompletions(logs, accepted, 45_000);
      // Jobs of calls cut off by the crash may still run: wait for the queue to drain before counting duplicates.
      inspector = createWebhookQueue({ connection: server.url, name: queueName, logger: countingLogger() });
      await inspector.ready();
      const queue = inspector.bullQueue;
      const drained = await eventually(async () => {
        const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
        return Object.values(counts).every((count) => count === 0);
      }, 30_000, 250);
      const counts = completions(logs);
      const runs = completedRuns(logs);
      const failed = (await queue.getJobCounts('failed')).failed ?? 0;
      const notAccepted = outcomes.filter((outcome) => outcome.status !== 200);
      const perWorker: Record<string, number> = {};
      for (const run of runs) perWorker[run.worker] = (perWorker[run.worker] ?? 0) + 1;
      console.log(`      crash: ${JSON.stringify({
        calls: CALLS, loadMs, drained, totalMs: Date.now() - started, answers: tally(outcomes),
        toRestartedWeb: outcomes.filter((outcome) => outcome.port === restartedPort).length,
        answered200Lost: missing.length, ranMoreThanOnce: [...counts.values()].filter((count) => count > 1).length,
        notAnswered200ButRan: notAccepted.filter((outcome) => counts.has(outcome.id)).length, failedJobs: failed,
        takenUpAfterWorkerDied: runs.filter((run) => run.attempt > 1).length, runsPerWorker: perWorker,
      })}`);

      expect(missing, 'calls answered 200 whose run never completed').to.deep.equal([]);
      expect(children.unexpectedExits, 'web instances or workers that died by themselves').to.deep.equal([]);
      for (const outcome of notAccepted) {
        if (outcome.status === undefined) {
          // Only the calls on the killed instance's connections may end without an answer, and none may hang.
          expect([outcome.port, outcome.error], `call ${outcome.id}`).to.satisfy(([port, error]: [number, string]) => port === killedPort && error !== 'HANG');
        } else {
          expect([outcome.status, outcome.code, outcome.retryAfter], `call ${outcome.id}`).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '2']);
        }
      }
      // No failed job counts only once nothing is left to run (or to fail).
      expect(drained, 'the queue drained (waiting, active, delayed, prioritized all 0)').to.equal(true);
      expect(failed).to.equal(0);
      // Most calls got through around the fault, and the restarted instance takes calls as the others do.
      expect(accepted.length).to.be.above(CALLS / 2);
      expect(outcomes.filter((outcome) => outcome.port === restartedPort && outcome.status === 200).length).to.be.above(0);
    });
  });
}
