/**
 * A worker SIGKILLed in the middle of a run: another worker's stalled-job check puts the run back in the queue, says
 * so (event `recovered` naming the job, and a log line), and runs it. A real redis-server, the dying worker a child
 * process, the surviving one in the mocha process with short lock and check intervals.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhookWorker, type WebhookWorker, type WebhookWorkerEvent } from 'workflow-webhooks/queue';
import { Children } from '../../support/queue/children.js';
import { eventually } from '../../support/queue/setup.js';
import { HOOK_PATH, startWeb, type RunningWeb } from '../../support/queue/web.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';

if (findService(REDIS) === undefined) {
  markNotRun('queue mode: a dead worker\'s run is recovered', REDIS);
} else {
  describe('queue mode: a dead worker\'s run, taken up by another worker', function () {
    this.timeout(60_000);
    let server: RedisServer;
    let web: RunningWeb;
    let survivor: WebhookWorker | undefined;
    let directory: string;
    const children = new Children();
    const queueName = `recovered-${process.pid}`;

    before(async function () {
      this.timeout(30_000);
      server = await RedisServer.start() as RedisServer;
      directory = mkdtempSync(join(tmpdir(), 'queue-recovered-'));
      web = await startWeb({ redisUrl: server.url, queueName, enqueueTimeoutMs: 2000 });
    });
    after(async function () {
      this.timeout(30_000);
      await survivor?.close({ timeoutMs: 1000 });
      await children.killAll();
      await web?.close();
      await server?.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    it('emits recovered with the job\'s id, logs it, and runs the job again', async () => {
      // The doomed worker's run lasts far longer than the test: it is under way when the worker is killed. Its own
      // stalled check is short too: each check keeps every other worker's off the queue for the checker's interval.
      const doomed = await children.start('worker', 'doomed', {
        REDIS_URL: server.url, QUEUE_NAME: queueName, COMPLETION_LOG: join(directory, 'doomed.log'), WORK_MS: '600000', CONCURRENCY: '1', LOCK_MS: '1000', STALLED_MS: '300',
      });
      const answer = await fetch(`http://127.0.0.1:${web.port}${HOOK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
      expect(answer.status).to.equal(200);
      let jobId: string | undefined;
      await eventually(async () => {
        jobId = (await web.queue.bullQueue.getJobs(['active']))[0]?.id;
        return jobId !== undefined;
      }, 20_000);
      await doomed.kill();

      const events: WebhookWorkerEvent[] = [];
      const warnings: { fields: unknown; message: string }[] = [];
      const ran: { jobId: string; attempt: number }[] = [];
      survivor = createWebhookWorker({
        connection: server.url, name: queueName, lockDurationMs: 1000, stalledIntervalMs: 300,
        logger: { error: () => undefined, warn: (fields: unknown, message: string) => { warnings.push({ fields, message }); } },
        onEvent: (event) => { events.push(event); },
        executor: async (run) => {
          ran.push({ jobId: run.jobId, attempt: run.attempt });
          return { items: [] };
        },
      });
      await survivor.ready();
      await eventually(() => events.some((event) => event.type === 'completed'), 20_000);

      const recovered = events.filter((event) => event.type === 'recovered');
      expect(recovered).to.deep.equal([{ type: 'recovered', jobId }]);
      expect(events.findIndex((event) => event.type === 'recovered')).to.be.below(events.findIndex((event) => event.type === 'started'));
      expect(ran).to.deep.equal([{ jobId, attempt: 2 }]);
      const line = warnings.find((warning) => /runs again/.test(warning.message));
      expect(line?.fields).to.deep.equal({ jobId });
    });
  });
}
