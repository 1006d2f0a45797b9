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
import { createWebhookQueue, type WebhookQueue } from 'workflow-webhooks/queue';
import { Children, type Child } from '../../support/queue/children.js';
import { queueDrained } from '../../support/queue-drained.js';
import { completedRuns, eventually } from '../../support/queue/completions.js';
import { ONCE_PATH } from '../../support/queue/web.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';

const BURSTS = 100;
const PER_BURST = 50;
/** Longer than the one second between a waiting call's looks at its job, so a left-behind waiter cannot reach it. */
const QUIET_SECONDS = 3;

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
    /** The spec's own view of the queue, to see when it holds no job left to run. */
    let lookout: WebhookQueue | undefined;

    before(async function () {
      this.timeout(30_000);
      server = await RedisServer.start() as RedisServer;
      directory = mkdtempSync(join(tmpdir(), 'queue-dups-'));
    });
    after(async function () {
      this.timeout(30_000);
      await lookout?.close();
      await children.killAll();
      await server?.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    /** Redis's client connections now: each one's id with the seconds since its last command. */
    async function connections(): Promise<Map<string, number>> {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      try {
        const own = String(await client.sendCommand(['CLIENT', 'ID']));
        const list = String(await client.sendCommand(['CLIENT', 'LIST']));
        const idle = new Map<string, number>();
        for (const line of list.split('\n')) {
          const id = /(?:^| )id=(\d+)/.exec(line)?.[1];
          if (id !== undefined && id !== own) idle.set(id, Number(/ idle=(\d+)/.exec(line)?.[1]));
        }
        return idle;
      } finally {
        client.destroy();
      }
    }

    it('answers every caller of a burst with the one run\'s answer, survives 100 bursts, and once all are answered no call still looks at Redis', async () => {
      const log = (name: string): string => join(directory, `${name}.log`);
      const worker = (name: string): Promise<Child> => children.start('worker', name, {
        REDIS_URL: server.url, QUEUE_NAME: queueName, WORKER_NAME: name, COMPLETION_LOG: log(name), WORK_MS: '5', CONCURRENCY: '10',
      });
      // The web instance first, alone: the connections that appear meanwhile are its own.
      const before = await connections();
      const web = await children.start('web', 'web', { REDIS_URL: server.url, QUEUE_NAME: queueName, IDEMPOTENT: '1' });
      const webConnections = [...(await connections()).keys()].filter((id) => !before.has(id));
      expect(webConnections, 'the web instance\'s connections to Redis').to.not.be.empty;
      await Promise.all([worker('worker-a'), worker('worker-b')]);
      const port = web.port as number;
      const lookoutClient = createClient({ url: server.url });
      lookoutClient.on('error', () => undefined);
      lookout = createWebhookQueue({ connection: lookoutClient, name: queueName });
      await lookout.ready();

      const bursts: { key: string; answers: Answer[] }[] = [];
      for (let burst = 0; burst < BURSTS; burst += 1) {
        const key = `delivery-${burst}`;
        const body = JSON.stringify({ order: burst });
        const answers = await Promise.all(Array.from({ length: PER_BURST }, () => post(port, key, body).catch((error: Error) => ({ status: 0, body: error.message }))));
        bursts.push({ key, answers });
      }

      expect(children.unexpectedExits, 'no web instance or worker died').to.deep.equal([]);
      for (const { key, answers } of bursts) {
        expect(answers.map((answer) => answer.status), key).to.deep.equal(Array(PER_BURST).fill(200));
        expect(new Set(answers.map((answer) => answer.body)).size, `${key}: one answer for all`).to.equal(1);
      }
      // "One run per burst" is final only once no job is left to run: a duplicate could still be waiting or running.
      await queueDrained(lookout, 30_000);
      const runs = completedRuns([log('worker-a'), log('worker-b')]);
      expect(runs, 'one run per burst').to.have.length(BURSTS);
      expect(new Set(runs.map((run) => run.jobId)).size).to.equal(BURSTS);
      // Each burst's answer is its own run's: the run's first caller's call id, different for every burst.
      const answered = bursts.map(({ answers }) => (JSON.parse(answers[0]?.body ?? '{}') as { done?: string }).done);
      expect(new Set(answered).size).to.equal(BURSTS);
      expect(runs.map((run) => run.callId)).to.have.members(answered);

      // A waiter that outlived its call looks at its job every second, so the web instance's connections would never
      // fall quiet; once every call is answered, each of them stops sending commands.
      let idle = new Map<string, number>();
      const quiet = await eventually(async () => {
        idle = await connections();
        return webConnections.every((id) => (idle.get(id) ?? QUIET_SECONDS) >= QUIET_SECONDS); // a closed connection is quiet
      }, 60_000, 250);
      expect(quiet, `seconds since the web instance's last command, per connection: ${webConnections.map((id) => idle.get(id)).join(', ')}`).to.equal(true);
    });
  });
}
