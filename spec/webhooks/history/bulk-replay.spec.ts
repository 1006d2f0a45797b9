/**
 * Bulk replay (bulk-replay): every kept call a filter matches when it starts, each replayed once through the one-call
 * replay, at the rate asked, with its progress told and a way to stop. Over HTTP in Express 5 with a
 * MemoryHistoryStore; the rate on fake timers, against a source that only counts.
 */
import { expect } from 'chai';
import type { BulkReplayProgress, HistoryEntry, HistoryPage, ReplayResult, WebhookRun } from '../../../lib/index.js';
import { BulkReplayRun } from '../../../lib/webhooks/history/bulk-replay.js';
import { until, withFakeTimers } from '../../support/fake-clock.js';
import { hookWorkflow, postJson, startHistoryApp, type HistoryApp } from '../../support/history-app.js';
import { closeAll } from '../../support/close-all.js';

describe('bulk replay of kept calls', () => {
  let app: HistoryApp | undefined;
  let broken: boolean;
  afterEach(() => closeAll(() => app?.close()));

  /** Ten calls, the odd ones failing while `broken`; kept with their bodies. */
  async function tenCalls(history: { bodyBytes?: number } = { bodyBytes: 4096 }): Promise<HistoryApp> {
    broken = true;
    app = await startHistoryApp({
      workflows: [hookWorkflow('orders', 'orders')], history,
      executor: (run: WebhookRun) => {
        if (broken && (run.items[0]?.json.body as { n: number }).n % 2 === 1) throw new Error('the CRM was down');
        return { items: run.items };
      },
    });
    for (let n = 0; n < 10; n += 1) await postJson(app.url('orders'), { n }, { 'x-request-id': `call-${n}` });
    await app.history.flush();
    return app;
  }

  const replayedBodies = (runs: WebhookRun[]): number[] => runs.filter((run) => run.replay !== undefined)
    .map((run) => (run.items[0]?.json.body as { n: number }).n).sort((a, b) => a - b);

  it('replays each failed call once after the fix, with progress, each replay linked to its original', async () => {
    await tenCalls();
    broken = false;
    const told: BulkReplayProgress[] = [];
    app!.history.onProgress((progress) => { told.push(progress); });
    const bulk = app!.history.replayAll({ statusClass: 5 }, { by: 'ops', perSecond: 1000 });
    const done = await bulk.done;
    expect(done).to.deep.include({ state: 'done', matched: 5, replayed: 5, failed: 0, refused: 0, skipped: 0, by: 'ops' });
    expect(replayedBodies(app!.runs)).to.deep.equal([1, 3, 5, 7, 9]);
    expect(told.at(-1)).to.deep.equal(done);
    expect(told.length).to.be.greaterThan(5);
    await app!.history.flush();
    const failed = (await app!.history.find({ statusClass: 5 })).entries;
    for (const original of failed) {
      const replays = (await app!.history.find({ replayOf: original.id })).entries;
      expect(replays.map((entry) => [entry.status, entry.replayedBy]), original.requestId).to.deep.equal([[200, 'ops']]);
    }
    expect(app!.history.bulkReplays().map((progress) => progress.id)).to.deep.equal([bulk.id]);
    expect(app!.history.bulkReplay(bulk.id)).to.equal(bulk);
  });

  it('counts runs that fail again as failed, calls replayed before as skipped, and calls that cannot run as refused', async () => {
    await tenCalls();
    const failed = (await app!.history.find({ statusClass: 5 })).entries;
    await app!.history.replay((failed[0] as HistoryEntry).id, { by: 'ops' });
    await app!.history.flush();
    const done = await app!.history.replayAll({ statusClass: 5 }, { by: 'ops', perSecond: 1000 }).done;
    // Still broken: 4 run and fail again, 1 was replayed before; the first replay (a 5xx itself) is not replayed.
    expect(done).to.deep.include({ matched: 5, replayed: 0, failed: 4, skipped: 1, refused: 0 });
    await app!.close();
    await tenCalls({ bodyBytes: 0 });
    const refused = await app!.history.replayAll({ statusClass: 5 }, { by: 'ops', perSecond: 1000 }).done;
    expect(refused).to.deep.include({ matched: 5, refused: 5, replayed: 0 });
  });

  it('leaves replays out unless the filter names the call they replay', async () => {
    await tenCalls();
    broken = false;
    const [newest] = (await app!.history.find({}, { limit: 1 })).entries;
    const single = await app!.history.replay((newest as HistoryEntry).id, { by: 'ops' });
    await app!.history.flush();
    const all = await app!.history.replayAll({ workflowId: 'orders' }, { by: 'ops', perSecond: 1000, again: true }).done;
    expect(all).to.deep.include({ matched: 10, replayed: 10 });
    const ofOne = await app!.history.replayAll({ replayOf: (newest as HistoryEntry).id }, { by: 'ops', perSecond: 1000 }).done;
    expect(ofOne).to.deep.include({ matched: 1, replayed: 1 });
    expect(app!.runs.filter((run) => run.replay?.of === single.entryId)).to.have.length(1);
  });

  it('starts no more replays once stopped, and ends as stopped', async () => {
    await tenCalls();
    broken = false;
    const bulk = app!.history.replayAll({}, { by: 'ops', perSecond: 1, concurrency: 1 });
    app!.history.onProgress((progress) => { if (progress.id === bulk.id && progress.replayed === 1) bulk.stop(); });
    const done = await bulk.done;
    expect(done).to.deep.include({ state: 'stopped', replayed: 1 });
    expect(replayedBodies(app!.runs)).to.have.length(1);
  });
});

describe('a bulk replay\'s snapshot and rate', () => {
  function entryOf(index: number): HistoryEntry {
    return { id: `00000000${index}-0000000000000000`, requestId: `call-${index}` } as HistoryEntry;
  }

  it('asks only for calls that arrived up to the millisecond it started, whatever later page it reads', async () => {
    const asked: unknown[] = [];
    const source = {
      find: (filter: unknown, page: { cursor?: string }): Promise<HistoryPage> => {
        asked.push(filter);
        return Promise.resolve(page.cursor === undefined ? { entries: [entryOf(2)], next: entryOf(2).id } : { entries: [entryOf(1)] });
      },
      replay: (id: string): Promise<ReplayResult> => Promise.resolve({ entryId: `${id}-replay`, of: id, status: 200 }),
    };
    const before = Date.now();
    const bulk = new BulkReplayRun(source, { workflowId: 'orders', to: before + 60_000 }, { by: 'ops', perSecond: 1000, concurrency: 4 }, () => undefined);
    expect(await bulk.done).to.deep.include({ matched: 2, replayed: 2 });
    const { startedAt } = bulk.progress();
    // `to` is exclusive: a call kept in the very millisecond the bulk replay started is in it.
    expect(asked).to.deep.equal([{ workflowId: 'orders', to: startedAt + 1 }, { workflowId: 'orders', to: startedAt + 1 }]);
    const earlier = new BulkReplayRun(source, { to: before - 1000 }, { by: 'ops', perSecond: 1000, concurrency: 4 }, () => undefined);
    await earlier.done;
    expect(asked.at(-1)).to.deep.equal({ to: before - 1000 });
  });

  it('starts perSecond replays a second, and no more than concurrency at once', () => withFakeTimers(async (clock) => {
    const started: string[] = [];
    const finish: (() => void)[] = [];
    const source = {
      find: (): Promise<HistoryPage> => Promise.resolve({ entries: [1, 2, 3, 4].map(entryOf) }),
      replay: (id: string): Promise<ReplayResult> => new Promise((resolve) => {
        started.push(id);
        finish.push(() => { resolve({ entryId: `${id}-replay`, of: id, status: 200 }); });
      }),
    };
    const bulk = new BulkReplayRun(source, {}, { by: 'ops', perSecond: 2, concurrency: 2 }, () => undefined);
    await until(() => started.length === 1, 'the first replay started');
    await clock.tickAsync(499);
    expect(started).to.have.length(1);
    await clock.tickAsync(1);
    await until(() => started.length === 2, 'the second replay started');
    // Two under way: the third waits for one to end, however long the rate would allow.
    await clock.tickAsync(5_000);
    expect(started).to.have.length(2);
    finish[0]?.();
    await until(() => started.length === 3, 'the third replay started');
    for (const done of finish.slice(1)) done();
    await clock.tickAsync(1_000);
    await until(() => started.length === 4, 'the fourth replay started');
    finish[3]?.();
    expect(await bulk.done).to.deep.include({ state: 'done', matched: 4, replayed: 4 });
  }, ['setTimeout', 'clearTimeout', 'Date']));
});
