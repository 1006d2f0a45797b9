/**
 * History across its store's crash and restart (Redis with an append-only file, PostgreSQL stopped `-m immediate`),
 * over HTTP to an Express 5 host: calls kept before stay, calls made while it is down land once it is back, each
 * once; while it is down finding, opening and replaying a kept call are refused 503 HISTORY_UNAVAILABLE and nothing
 * runs, and after the restart the replay runs; a bulk replay waits out the restart and replays each call once.
 * close() while the store is down returns and logs the calls it could not write.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES, PostgresServer } from '../../support/postgres-server.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun, type Service } from '../../support/services.js';
import {
  CONSOLE_FIND_FAILED, eventually, historyLines, historyStoreAt, OUTAGE_LINE, RECOVERY_LINE, startDownApp, unhandledRejections,
  webhookErrorCode, type DownApp, type OpenedHistoryStore,
} from '../../support/history/down-app.js';

/** A store's server that keeps its data across a crash, and starts again on the same address. */
interface DurableServer {
  url: string;
  crash(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const DURABLE: ReadonlyArray<{ name: 'Redis' | 'PostgreSQL'; service: Service; start(): Promise<DurableServer> }> = [
  {
    name: 'Redis',
    service: REDIS,
    async start() {
      // An append-only file written before each answer: after SIGKILL it comes back with every call it took.
      const folder = mkdtempSync(join(tmpdir(), 'wwh-history-down-'));
      const server = await RedisServer.start(() => ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', folder]) as RedisServer;
      return {
        url: server.url, crash: () => server.kill(), start: () => server.restart(),
        async stop() {
          await server.stop();
          rmSync(folder, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    service: POSTGRES,
    async start() {
      const server = await PostgresServer.start() as PostgresServer;
      return { url: server.url, crash: () => server.stopImmediately(), start: () => server.startAgain(), stop: () => server.stop() };
    },
  },
];

for (const kind of DURABLE) {
  if (findService(kind.service) === undefined) {
    markNotRun(`history across a restart of ${kind.name}`, kind.service);
    continue;
  }
  describe(`history across a restart of ${kind.name}`, function () {
    this.timeout(60_000);
    let server: DurableServer;
    let opened: OpenedHistoryStore;
    let host: DownApp;
    let down = false;
    const unhandled = unhandledRejections();

    before(async function () {
      this.timeout(120_000);
      server = await kind.start();
      opened = historyStoreAt(kind.name, server.url);
      host = await startDownApp(opened.store);
    });
    after(async function () {
      this.timeout(30_000);
      await host?.app.close();
      await opened?.close();
      await server?.stop();
    });
    // A test that failed while the server was down leaves it down: the next starts with it up all the same.
    afterEach(async () => {
      if (down) await up();
    });

    async function crash(): Promise<void> {
      await server.crash();
      down = true;
    }
    async function up(): Promise<void> {
      await server.start();
      down = false;
    }

    it('keeps the calls made while the store is down, writing each once after its restart, beside those kept before', async () => {
      const before = ['before-0', 'before-1', 'before-2'];
      for (const requestId of before) expect(await host.post(requestId)).to.equal(200);
      await host.history.flush();
      expect(await host.keptRequestIds()).to.deep.equal(before);

      await crash();
      const during = ['during-0', 'during-1', 'during-2', 'during-3'];
      for (const requestId of during) expect(await host.post(requestId)).to.equal(200);
      const tried = opened.appends();
      // Three more writes begun: two of them refused at least, each tried again after its backoff. One line for them all.
      await eventually(() => opened.appends() >= tried + 3, 'writes tried while it is down');
      expect(host.lines).to.deep.equal([OUTAGE_LINE]);

      await up();
      await eventually(async () => (await host.keptRequestIds()).length >= before.length + during.length, 'the calls made while it was down kept');
      expect(await host.keptRequestIds(), 'every call, in order, each once').to.deep.equal([...before, ...during]);
      await eventually(() => historyLines(host.lines).length >= 2, 'the recovery logged');
      expect(host.lines).to.deep.equal([OUTAGE_LINE, RECOVERY_LINE]);
    });

    it('refuses finding, opening and replaying a kept call while the store is down, running nothing, and replays it once it is back', async () => {
      const from = host.lines.length;
      expect(await host.post('kept-0')).to.equal(200);
      await host.history.flush();
      const [original] = (await host.history.find({ requestId: 'kept-0' })).entries;
      expect(original, 'the call kept before').to.not.equal(undefined);
      const id = String(original?.id);
      const runs = host.runs.length;
      await crash();
      expect(await webhookErrorCode(host.history.find())).to.equal('HISTORY_UNAVAILABLE');
      expect(await webhookErrorCode(host.history.get(id))).to.equal('HISTORY_UNAVAILABLE');
      expect(await host.consoleFind()).to.deep.equal({ status: 503, code: 'HISTORY_UNAVAILABLE' });
      expect(await webhookErrorCode(host.history.replay(id, { by: 'ops' }))).to.equal('HISTORY_UNAVAILABLE');
      expect(host.runs, 'no run for the refused replay').to.have.length(runs);

      await up();
      // The first command after the restart may still meet the connection the crash closed.
      await eventually(async () => (await host.history.get(id))?.replays === 0, 'the kept call read again');
      const replayed = await host.history.replay(id, { by: 'ops' });
      expect(replayed).to.deep.include({ of: id, status: 200 });
      expect(host.runs.slice(runs).map((run) => run.replay)).to.deep.equal([{ of: id, at: original?.at, by: 'ops' }]);
      expect((await host.history.get(id))?.replays).to.equal(1);
      await host.history.flush();
      expect((await host.history.find({ replayOf: id })).entries.map((entry) => entry.replayedBy)).to.deep.equal(['ops']);
      // No write failed (no call waited while it was down); the console logged the one 503 it answered.
      expect(host.lines.slice(from)).to.deep.equal([CONSOLE_FIND_FAILED]);
    });

    it('keeps a call once, with the replays claimed since, when its batch is written again after its answer was lost', async () => {
      expect(await host.post('retried-0')).to.equal(200);
      await host.history.flush();
      const [kept] = (await host.history.find({ requestId: 'retried-0' })).entries;
      const id = String(kept?.id);
      const record = await opened.store.get(id);
      expect((await host.history.replay(id, { by: 'ops' })).of).to.equal(id);
      // The writer tries a batch again when its answer did not come (a restart, a deadline), though it may have landed.
      await opened.store.append([{ ...record as NonNullable<typeof record>, replays: 0 }]);
      expect((await host.history.get(id))?.replays, 'the replay claimed before the batch came again').to.equal(1);
      expect(await webhookErrorCode(host.history.replay(id, { by: 'ops' }))).to.equal('HISTORY_REPLAYED_BEFORE');
      expect((await host.history.find({ requestId: 'retried-0' })).entries.map((entry) => entry.id)).to.deep.equal([id]);
      // The replay's own entry is written too, not left for close().
      await host.history.flush();
    });

    it('goes on with a bulk replay across the store\'s restart: it waits, saying why, and replays each call it matched once', async () => {
      const from = Date.now();
      const sent = Array.from({ length: 6 }, (_, index) => `bulk-${index}`);
      for (const requestId of sent) expect(await host.post(requestId)).to.equal(200);
      await host.history.flush();
      const ids = (await host.history.find({ from })).entries.map((entry) => entry.id);
      expect(ids).to.have.length(sent.length);
      const runs = host.runs.length;
      const bulk = host.history.replayAll({ from }, { by: 'ops', perSecond: 4, concurrency: 1 });
      await eventually(() => bulk.progress().replayed >= 1, 'a first call replayed');
      await crash();
      await eventually(() => bulk.progress().error !== undefined, 'the bulk replay waiting for the store');
      expect(bulk.progress().state).to.equal('running');
      await up();
      const ended = await bulk.done;
      expect(ended).to.deep.include({ state: 'done', matched: sent.length, replayed: sent.length, failed: 0, refused: 0, skipped: 0 });
      expect(ended.error).to.equal(undefined);
      const replayed = host.runs.slice(runs).map((run) => String(run.replay?.of));
      expect([...replayed].sort(), 'each call it matched replayed once').to.deep.equal([...ids].sort());
      // The replays' own entries are written too, not left for close().
      await host.history.flush();
    });

    it('returns from close() while the store is down, and logs the calls it could not write', async () => {
      const from = host.lines.length;
      await crash();
      const during = ['closing-0', 'closing-1', 'closing-2'];
      for (const requestId of during) expect(await host.post(requestId)).to.equal(200);
      // A write under way when close() comes: on Redis it waits for its connection until commandTimeoutMs.
      const tried = opened.appends();
      await eventually(() => opened.appends() > tried, 'a write tried');
      const closed = await Promise.race([
        host.app.middleware.close({ timeoutMs: 200 }).then(() => 'returned'),
        new Promise((resolve) => { setTimeout(resolve, 10_000, 'still waiting').unref(); }),
      ]);
      expect(closed).to.equal('returned');
      // The outage is told when a write fails; one still under way at close() fails after it, and is not told then.
      const told = historyLines(host.lines.slice(from));
      expect(told.filter((line) => line !== OUTAGE_LINE)).to.deep.equal(['workflow-webhooks: history: 3 call(s) were not written before close()']);
      expect(told.length, 'one outage line at most').to.be.at.most(2);
      expect(unhandled, 'unhandled rejections').to.deep.equal([]);
    });
  });
}
