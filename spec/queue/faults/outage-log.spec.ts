/**
 * What a worker writes to its log while its store is away for a few seconds and then back: one warning as the outage
 * begins and one as it ends, each error in it with its message and code, not one line per failed try of BullMQ's; and
 * a run whose completion the outage kept from being recorded, run again, named as such.
 */
import { expect } from 'chai';
import { createWebhookWorker, type WebhookWorker } from 'workflow-webhooks/queue';
import { POSTGRES, PostgresServer } from '../../support/postgres-server.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { eventually } from '../../support/queue/completions.js';
import { HOOK_PATH, startWeb, type RunningWeb } from '../../support/queue/web.js';
import { findService, markNotRun, type Service } from '../../support/services.js';

const AWAY_MS = 3000;

interface Line {
  level: 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

interface Outage {
  url: string;
  /** Takes the store away (stopped, or frozen) and brings it back after AWAY_MS. */
  away(): Promise<void>;
  stop(): Promise<void>;
}

const STORES: ReadonlyArray<{ name: string; service: Service; open(): Promise<Outage> }> = [
  {
    name: 'PostgreSQL',
    service: POSTGRES,
    async open() {
      const server = await PostgresServer.start() as PostgresServer;
      return {
        url: server.url,
        away: async () => {
          await server.stopImmediately();
          await new Promise((resolve) => setTimeout(resolve, AWAY_MS));
          await server.startAgain();
        },
        stop: () => server.stop(),
      };
    },
  },
  {
    name: 'Redis',
    service: REDIS,
    async open() {
      const server = await RedisServer.start() as RedisServer;
      return {
        url: server.url,
        away: async () => {
          await server.kill();
          await new Promise((resolve) => setTimeout(resolve, AWAY_MS));
          await server.restart();
        },
        stop: () => server.stop(),
      };
    },
  },
];

for (const store of STORES) {
  if (findService(store.service) === undefined) {
    markNotRun(`a worker's log while ${store.name} is away`, store.service);
    continue;
  }
  describe(`a worker's log while ${store.name} is away for a few seconds`, function () {
    this.timeout(60_000);
    let outage: Outage;
    let worker: WebhookWorker | undefined;
    const lines: Line[] = [];
    const logger = {
      warn: (fields: Record<string, unknown>, message = '') => { lines.push({ level: 'warn', fields, message }); },
      error: (fields: Record<string, unknown>, message = '') => { lines.push({ level: 'error', fields, message }); },
    };

    before(async function () {
      this.timeout(60_000);
      outage = await store.open();
      worker = createWebhookWorker({ connection: outage.url, name: `outage-log-${process.pid}`, executor: async (run) => ({ items: run.items }), logger });
      await worker.ready();
    });
    after(async function () {
      this.timeout(30_000);
      await worker?.close({ timeoutMs: 500 });
      await outage?.stop();
    });

    it('writes one warning when the outage begins and one when it ends, each error with its message and code', async () => {
      lines.length = 0;
      await outage.away();
      const ended = (line: Line): boolean => line.message.includes(`${store.name} answers again after`);
      expect(await eventually(() => lines.some(ended), 20_000), 'the end of the outage is told').to.equal(true);
      // Each of BullMQ's loops and each connection of ours failed on its own while the store was away: none of those
      // failures may add a line.
      expect(lines.map((line) => [line.level, line.message.split(';')[0]])).to.deep.equal([
        ['warn', `queue worker: ${store.name} failed`],
        ['warn', `queue worker: ${store.name} answers again after ${String(lines[1]?.fields.downMs)} ms (${String(lines[1]?.fields.failures)} failed tries meanwhile)`],
      ]);
      const err = lines[0]?.fields.err as Record<string, unknown>;
      expect(err.message, 'the error has its message').to.be.a('string').and.not.equal('');
      expect(lines[1]?.fields.failures, 'the failures are counted').to.be.a('number').greaterThan(0);
    });
  });
}

/**
 * A run that ends while PostgreSQL is down: its completion is not recorded, its lock lapses, and once the database is
 * back the run is taken up again. The line that says so names the outage, not only a worker that died.
 */
if (findService(POSTGRES) === undefined) {
  markNotRun('a run whose completion PostgreSQL did not record', POSTGRES);
} else {
  describe('a run that ended while PostgreSQL was down, run again', function () {
    this.timeout(90_000);
    let server: PostgresServer;
    let web: RunningWeb | undefined;
    let worker: WebhookWorker | undefined;
    const lines: Line[] = [];
    const queueName = `outage-stall-${process.pid}`;

    before(async function () {
      this.timeout(60_000);
      server = await PostgresServer.start() as PostgresServer;
      web = await startWeb({ databaseUrl: server.url, queueName, enqueueTimeoutMs: 2000 });
    });
    after(async function () {
      this.timeout(30_000);
      await server?.startAgain().catch(() => undefined);
      await worker?.close({ timeoutMs: 500 });
      await web?.close();
      await server?.stop();
    });

    it('names PostgreSQL\'s outage as the cause in the line that says the run runs again', async () => {
      const attempts: number[] = [];
      worker = createWebhookWorker({
        connection: server.url, name: queueName, lockDurationMs: 1000, stalledIntervalMs: 300,
        logger: {
          warn: (fields: Record<string, unknown>, message = '') => { lines.push({ level: 'warn', fields, message }); },
          error: (fields: Record<string, unknown>, message = '') => { lines.push({ level: 'error', fields, message }); },
        },
        executor: async (run) => {
          attempts.push(run.attempt);
          // The first run ends with the database gone: its completion cannot be written.
          if (run.attempt === 1) await server.stopImmediately();
          return { items: [] };
        },
      });
      await worker.ready();
      const answer = await fetch(`http://127.0.0.1:${(web as RunningWeb).port}${HOOK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
      expect(answer.status).to.equal(200);
      expect(await eventually(() => lines.some((line) => line.message.startsWith('queue worker: PostgreSQL failed')), 20_000), 'the outage is told').to.equal(true);
      await server.startAgain();
      expect(await eventually(() => attempts.length >= 2, 30_000), 'the run runs again').to.equal(true);
      const again = lines.find((line) => line.message.includes('runs again'));
      expect(again?.message).to.match(/PostgreSQL was unreachable (now|\d+ ms ago), when the run ended or while it ran, so its completion \(or its lock\) was not recorded/);
      expect(again?.message).to.include('keys its side effects by run.callId');
      expect(again?.fields.sinceOutageMs).to.be.a('number');
    });
  });
}
