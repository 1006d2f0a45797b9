/**
 * A web queue and a worker started while their store (Redis, or PostgreSQL) is down: neither gives up. Calls are
 * refused 503 while it is away, the worker's process keeps running, and once the store accepts connections the web
 * instance takes calls again and the worker runs every call answered 2xx, and none that was refused. On PostgreSQL
 * the same after a restart as a crash would make it (`pg_ctl restart -m immediate`). How long after the store came
 * up calls were taken again is printed (the goal is under 2 s; a figure, not an assertion).
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { POSTGRES, PostgresServer } from '../../support/postgres-server.js';
import { Children, type Child } from '../../support/queue/children.js';
import { begunCalls, eventually, waitForCompletions } from '../../support/queue/completions.js';
import { closeConnections, stream, tally, type Outcome } from '../../support/queue/load.js';
import { startWeb, type RunningWeb } from '../../support/queue/web.js';
import { createWebhookWorker } from 'workflow-webhooks/queue';
import { findService, markNotRun } from '../../support/services.js';
import { STORES_DOWN, type DownStore } from '../../support/stores-down.js';

const DOWN_MS = 2500;

for (const store of STORES_DOWN) {
  if (findService(store.service) === undefined) {
    markNotRun(`queue mode started while ${store.name} is down`, store.service);
    continue;
  }
  describe(`queue mode started while ${store.name} is down`, function () {
    this.timeout(120_000);
    let opened: DownStore;
    let web: RunningWeb;
    let worker: Promise<Child>;
    let directory: string;
    const children = new Children();
    const queueName = `down-at-start-${process.pid}`;

    before(async function () {
      this.timeout(90_000);
      opened = await store.open();
      directory = mkdtempSync(join(tmpdir(), 'queue-down-at-start-'));
      web = await startWeb({ ...(store.name === 'Redis' ? { redisUrl: opened.url } : { databaseUrl: opened.url }), queueName, enqueueTimeoutMs: 800, awaitReady: false });
      worker = children.start('worker', 'worker', { [store.name === 'Redis' ? 'REDIS_URL' : 'DATABASE_URL']: opened.url, QUEUE_NAME: queueName, COMPLETION_LOG: join(directory, 'worker.log'), WORK_MS: '2' });
      worker.catch(() => undefined);
    });
    after(async function () {
      this.timeout(30_000);
      closeConnections();
      await web?.close();
      await children.killAll();
      await opened?.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    it('refuses calls 503 while the store is away, then takes them within moments of it coming up and runs every one it accepted', async () => {
      let upAt = Number.POSITIVE_INFINITY;
      let firstAfter: number | undefined;
      let accepted = 0;
      const sending = stream({
        prefix: `${store.name}-start`, inFlight: 4, gapMs: 20, target: () => web.port, hangAfterMs: 8000,
        until: () => accepted >= 40,
        onOutcome: (outcome) => {
          if (outcome.status !== 200) return;
          firstAfter ??= Date.now();
          accepted += 1;
        },
      });
      await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
      await opened.up();
      upAt = Date.now();
      const outcomes = await sending;
      const before = outcomes.filter((outcome) => outcome.status !== 200);
      expect(outcomes.filter((outcome) => outcome.error !== undefined), 'no call hangs or loses its connection').to.deep.equal([]);
      expect(new Set(before.map((outcome) => `${String(outcome.status)} ${String(outcome.code)}`))).to.deep.equal(new Set(['503 QUEUE_UNAVAILABLE']));
      expect(before.length, 'calls were sent while the store was away').to.be.greaterThan(0);
      const ok = outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.id);
      expect(await waitForCompletions([join(directory, 'worker.log')], ok, 30_000), 'every call answered 2xx runs').to.deep.equal([]);
      const ran = begunCalls([join(directory, 'worker.log')]);
      expect(before.filter((outcome) => ran.has(outcome.id)).map((outcome) => outcome.id), 'no refused call runs').to.deep.equal([]);
      expect(children.unexpectedExits, 'the worker never ended').to.deep.equal([]);
      await worker;
      process.stdout.write(`      ${store.name} up after ${DOWN_MS} ms: ${JSON.stringify(tally(outcomes))}; first call taken ${Math.max(0, (firstAfter as number) - upAt)} ms after it accepted connections\n`);
    });

    if (store.name === 'PostgreSQL') {
      it('takes calls again within moments of a restart as a crash would make it, and runs every one it accepted', async () => {
        let restartedAt = Number.POSITIVE_INFINITY;
        let firstAfter: number | undefined;
        let accepted = 0;
        const sending = stream({
          prefix: 'restart', inFlight: 4, gapMs: 20, target: () => web.port, hangAfterMs: 8000,
          until: () => accepted >= 40,
          onOutcome: (outcome) => {
            if (outcome.status !== 200 || Date.now() - outcome.ms < restartedAt) return;
            firstAfter ??= Date.now();
            accepted += 1;
          },
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
        await (opened.restart as () => Promise<void>)();
        restartedAt = Date.now();
        const outcomes = await sending;
        expect(outcomes.filter((outcome) => outcome.error !== undefined), 'no call hangs or loses its connection').to.deep.equal([]);
        expect(await eventually(() => firstAfter !== undefined, 1), 'calls are taken again').to.equal(true);
        const ok = outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.id);
        expect(await waitForCompletions([join(directory, 'worker.log')], ok, 30_000), 'every call answered 2xx runs').to.deep.equal([]);
        const ran = begunCalls([join(directory, 'worker.log')]);
        expect(outcomes.filter((outcome) => outcome.status !== 200 && ran.has(outcome.id)).map((outcome) => outcome.id), 'no refused call runs').to.deep.equal([]);
        expect(children.unexpectedExits, 'the worker never ended').to.deep.equal([]);
        process.stdout.write(`      restart -m immediate: ${JSON.stringify(tally(outcomes))}; first call taken ${Math.max(0, (firstAfter as number) - restartedAt)} ms after it accepted connections\n`);
      });
    }
  });
}

/**
 * A worker process as hosts write it (`createWebhookWorker({ … })`, nothing awaited): with its store down it stays up
 * and trying; with a setting that waiting cannot mend it ends with exit code 1, never 0, so a supervisor restarts it.
 */
if (findService(POSTGRES) !== undefined) {
  describe('a worker process whose host never awaits ready()', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    before(async function () {
      this.timeout(60_000);
      server = await PostgresServer.start() as PostgresServer;
    });
    after(async () => { await server?.stop(); });

    const workerProcess = (connection: string, extra: string): ChildProcess => spawn(process.execPath, [
      '--conditions=workflow-webhooks-source', '--import', 'tsx', '--input-type=module', '-e',
      `import { createWebhookWorker } from 'workflow-webhooks/queue';
       createWebhookWorker({ connection: ${JSON.stringify(connection)}, name: 'unawaited', executor: async (run) => ({ items: run.items }), logger: { warn() {}, error() {} }${extra} });`,
    ], { stdio: 'ignore' });
    const exitOf = (child: ChildProcess, limitMs: number): Promise<number | null | 'running'> => new Promise((resolve) => {
      const timer = setTimeout(() => resolve('running'), limitMs);
      child.once('exit', (code) => { clearTimeout(timer); resolve(code); });
    });

    it('keeps running, and trying, while PostgreSQL is down', async () => {
      await server.stopImmediately();
      const child = workerProcess(server.url, '');
      const admin = new pg.Client({ connectionString: server.url });
      admin.on('error', () => undefined);
      try {
        // Down for a while: its first tries fail.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        await server.startAgain();
        // Its connections once PostgreSQL is back show it outlived the outage and kept trying.
        await admin.connect();
        const others = async () => Number((await admin.query('SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = \'client backend\' AND pid <> pg_backend_pid()')).rows[0]?.n);
        const until = Date.now() + 20_000;
        while (await others() === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(await others(), 'the worker connected once PostgreSQL was back').to.be.greaterThan(0);
        expect(child.exitCode).to.equal(null);
      } finally {
        child.kill('SIGKILL');
        await admin.end().catch(() => undefined);
      }
    });

    it('closed at any moment of its start, leaves nothing running: no BullMQ loop on connections closed under it', async () => {
      // Each close lands at another moment of the start (connecting, migrating, readying BullMQ's worker); a BullMQ
      // worker left over would retry on its ended pool without a pause and report an error each time.
      const warnings: string[] = [];
      const logger = { warn: (_fields: unknown, message: string) => { warnings.push(message); }, error: (_fields: unknown, message: string) => { warnings.push(message); } };
      const made = (name: string) => createWebhookWorker({ connection: server.url, name, executor: async (run) => ({ items: run.items }), logger });
      // Once ready and closed first: the schemas exist, and a start takes some 25 ms, which the closes below step through.
      const first = made('closing');
      await first.ready();
      await first.close({ timeoutMs: 500 });
      for (let delayMs = 0; delayMs <= 60; delayMs += 1) {
        const worker = made('closing');
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        await worker.close({ timeoutMs: 500 });
      }
      // One more started through to ready and closed: a loop left over, which retries without a pause, has told its
      // errors by then.
      const last = made('closing');
      await last.ready();
      await last.close({ timeoutMs: 500 });
      expect(warnings).to.deep.equal([]);
    });

    it('ends with exit code 1 when it cannot start for a reason waiting does not mend', async () => {
      // migrate: false on a database nobody migrated: a setting, not an outage.
      const child = workerProcess(server.url, `, schema: 'never_migrated', migrate: false`);
      expect(await exitOf(child, 20_000)).to.equal(1);
    });
  });
}
