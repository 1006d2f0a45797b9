/**
 * Queue mode under a sender's concurrent retries: a web instance and two workers as real processes on one Redis,
 * 100 bursts of 50 calls at once that share one Idempotency-Key each, to a lastNode workflow. Every caller of a
 * burst must get the one run's answer, the web process must live through it, and once everything is answered no
 * call may still be looking at Redis.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { Children, type Child } from '../../support/queue/children.js';
import { completedRuns } from '../../support/queue/completions.js';
import { ONCE_PATH } from '../../support/queue/web.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';

const BURSTS = 100;
const PER_BURST = 50;

interface Answer { status: number; body: string }

async function post(port: number, key: string, body: string): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${port}${ONCE_PATH}`, {
    method: 'POST', body, headers: { 'content-type': 'application/json', 'idempotency-key': key },
    signal: AbortSignal.timeout(20_000),
  });
  return { status: response.status, body: await response.text() };
}

if (findService(REDIS) === undefined) {
  markNotRun('queue mode under concurrent duplicates', REDIS);
} else {
  describe('queue mode under concurrent duplicates', function () {
    this.timeout(120_000);
    let server: RedisServer;
    let directory: string;
    const children = new Children();
    const queueName = `dups-${process.pid}`;

    before(async function () {
      this.timeout(30_000);
      server = await RedisServer.start() as RedisServer;
      directory = mkdtempSync(join(tmpdir(), 'queue-dups-'));
    });
    after(async function () {
      this.timeout(30_000);
      await children.killAll();
      await server?.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    /** Commands Redis processed over one second. */
    async function commandsPerSecond(): Promise<number> {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      try {
        const read = async (): Promise<number> => Number(/total_commands_processed:(\d+)/.exec(await client.info('stats'))?.[1]);
        const before = await read();
        await new Promise((resolve) => setTimeout(resolve, 1000));
        // The second INFO is itself a command; the first one is counted in `before`.
        return await read() - before - 1;
      } finally {
        client.destroy();
      }
    }

    it('answers every caller of a burst with the one run\'s answer, survives 100 bursts, and leaves Redis idle once all are answered', async () => {
      const log = (name: string): string => join(directory, `${name}.log`);
      const worker = (name: string): Promise<Child> => children.start('worker', name, {
        REDIS_URL: server.url, QUEUE_NAME: queueName, WORKER_NAME: name, COMPLETION_LOG: log(name), WORK_MS: '5', CONCURRENCY: '10',
      });
      const [web] = await Promise.all([
        children.start('web', 'web', { REDIS_URL: server.url, QUEUE_NAME: queueName, IDEMPOTENT: '1' }),
        worker('worker-a'), worker('worker-b'),
      ]);
      const port = (web as Child).port as number;
      const idle = await commandsPerSecond();

      const bursts: { key: string; answers: Answer[] }[] = [];
      for (let burst = 0; burst < BURSTS; burst += 1) {
        const key = `delivery-${burst}`;
        const body = JSON.stringify({ order: burst });
        const answers = await Promise.all(Array.from({ length: PER_BURST }, () => post(port, key, body).catch((error: Error) => ({ status: 0, body: error.message }))));
        bursts.push({ key, answers });
      }
      const lastAnswerAt = Date.now();

      expect(children.unexpectedExits, 'no web instance or worker died').to.deep.equal([]);
      for (const { key, answers } of bursts) {
        expect(answers.map((answer) => answer.status), key).to.deep.equal(Array(PER_BURST).fill(200));
        expect(new Set(answers.map((answer) => answer.body)).size, `${key}: one answer for all`).to.equal(1);
      }
      const runs = completedRuns([log('worker-a'), log('worker-b')]);
      expect(runs, 'one run per burst').to.have.length(BURSTS);
      expect(new Set(runs.map((run) => run.jobId)).size).to.equal(BURSTS);
      // Each burst's answer is its own run's: the run's first caller's call id, different for every burst.
      const answered = bursts.map(({ answers }) => (JSON.parse(answers[0]?.body ?? '{}') as { done?: string }).done);
      expect(new Set(answered).size).to.equal(BURSTS);
      expect(runs.map((run) => run.callId)).to.have.members(answered);

      // Waiters that outlived their calls would each look at Redis every second from here on.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastAnswerAt + 2000 - Date.now())));
      const after = await commandsPerSecond();
      expect(after, `commands per second: ${idle} idle before, ${after} after`).to.be.at.most(Math.max(2 * idle, idle + 20));
    });
  });
}
