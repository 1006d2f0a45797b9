/**
 * The recovery after a fix, as the acceptance test states it, shared by the in-process and queue-mode specs:
 * 1 000 orders over HTTP of which 200 fail; once the workflow is fixed, a bulk replay of the failed calls (by status
 * class and time) runs each exactly once, with progress, each replay a new entry linked to its original; the same
 * bulk replay again skips them all, and only `again: true` runs them once more. Also a bulk replay stopped mid-way.
 */
import { expect } from 'chai';
import type { BulkReplayProgress, HistoryEntry, HistoryFilter, WebhookHistory } from '../../../lib/index.js';
import { byStatus, failsBeforeFix, orderNumbers, sendOrders, type OrderWorkflow } from './orders.js';

export const ORDERS = 1000;
const BY = 'ops';

/** Pages of 500 one listing may take: the specs keep a few thousand calls at most. */
const MAX_PAGES = 20;

/** Every entry a filter finds, all pages; a cursor that never ends fails the test instead of filling the memory. */
export async function findAll(history: WebhookHistory, filter: HistoryFilter): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages += 1) {
    const page = await history.find(filter, cursor === undefined ? { limit: 500 } : { cursor, limit: 500 });
    entries.push(...page.entries);
    cursor = page.next;
    if (cursor === undefined) return entries;
  }
  throw new Error(`history.find() gave a next page ${MAX_PAGES} times for ${JSON.stringify(filter)}: its cursor does not go on`);
}

/**
 * Waits until history holds `count` calls of the filter. A call joins the writer's batch once its connection is done,
 * which the client may see a moment before the server does; flush() writes what joined.
 */
export async function keptAll(history: WebhookHistory, filter: HistoryFilter, count: number, limitMs = 10_000): Promise<HistoryEntry[]> {
  const until = Date.now() + limitMs;
  for (;;) {
    await history.flush();
    const entries = await findAll(history, filter);
    if (entries.length >= count || Date.now() > until) return entries;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Resolves once the clock is past `at` (a millisecond at most). A bulk replay leaves out calls from the millisecond
 * it starts in on (its snapshot's `to` is exclusive), so a spec that means a call to be in it, or out of it, lets the
 * clock move past that call first.
 */
export async function clockPast(at: number): Promise<void> {
  while (Date.now() <= at) await new Promise((resolve) => setImmediate(resolve));
}

/** What the orders left behind: the time range they arrived in and the failed calls, by order number. */
export interface SentOrders {
  filter: HistoryFilter;
  originals: Map<number, HistoryEntry>;
}

/** Sends `count` orders to `url` while the bug is in, and checks what they were answered and what history kept. */
export async function expectOrdersSent(history: WebhookHistory, url: string, count = ORDERS): Promise<SentOrders> {
  const from = Date.now();
  const numbers = orderNumbers(count);
  const statuses = await sendOrders(url, numbers);
  // `to` excludes its own millisecond: one more takes the last call in.
  const filter: HistoryFilter = { statusClass: 5, from, to: Date.now() + 1 };
  const failing = numbers.filter(failsBeforeFix);
  expect(byStatus(statuses)).to.deep.equal({ 200: numbers.filter((n) => !failsBeforeFix(n)), 500: failing });
  expect(await keptAll(history, { from, to: filter.to as number }, count)).to.have.length(count);
  const failed = await findAll(history, filter);
  const originals = new Map(failed.map((entry) => [(entry.data.body as { n: number }).n, entry]));
  expect([...originals.keys()].sort((a, b) => a - b), 'the failed calls kept, by order').to.deep.equal(failing);
  for (const entry of failed) expect(entry).to.deep.include({ status: 500, code: 'WORKFLOW_FAILED', replays: 0 });
  await clockPast(filter.to as number);
  return { filter, originals };
}

/** The progress a bulk replay told, from `replayAll` to its end. */
function heardProgress(history: WebhookHistory): { of(id: string): BulkReplayProgress[]; stop(): void } {
  const heard: BulkReplayProgress[] = [];
  const stop = history.onProgress((progress) => { heard.push(progress); });
  return { of: (id) => heard.filter((progress) => progress.id === id), stop };
}

/** Each order's runs since the fix. */
function runsPerOrder(workflow: OrderWorkflow): Map<number, number> {
  const counts = new Map<number, number>();
  for (const { n } of workflow.runsAfterFix) counts.set(n, (counts.get(n) ?? 0) + 1);
  return counts;
}

/**
 * The acceptance test, once the orders were sent: fix, bulk replay the failed calls, and check that each ran once,
 * as a replay of its original, with progress; that the same bulk replay again runs none; that `again` runs each once more.
 */
export async function expectRecoveredAfterFix(history: WebhookHistory, workflow: OrderWorkflow, { filter, originals }: SentOrders,
  { queued }: { queued: boolean }): Promise<void> {
  const failing = [...originals.keys()].sort((a, b) => a - b);
  workflow.fixed = true;
  const progress = heardProgress(history);
  try {
    const bulk = history.replayAll(filter, { by: BY, perSecond: 1000, concurrency: 16 });
    const done = await bulk.done;
    expect(done).to.deep.include({ state: 'done', matched: failing.length, replayed: failing.length, failed: 0, refused: 0, skipped: 0, by: BY });

    const told = progress.of(bulk.id);
    const replayedAsTold = told.map((one) => one.replayed);
    expect(replayedAsTold, 'replayed, as each progress told it').to.deep.equal([...replayedAsTold].sort((a, b) => a - b));
    expect(told.some((one) => one.state === 'running' && one.replayed > 0 && one.replayed < failing.length), 'progress told on the way').to.equal(true);
    expect(told.at(-1)).to.deep.equal(done);
    expect(bulk.progress()).to.deep.equal(done);

    // The fixed workflow ran each failed order exactly once, and no other, each run a replay of its own call.
    expect([...runsPerOrder(workflow)].sort(([a], [b]) => a - b)).to.deep.equal(failing.map((n) => [n, 1]));
    for (const { n, replay } of workflow.runsAfterFix) {
      const original = originals.get(n) as HistoryEntry;
      expect(replay, `the run of order ${n}`).to.deep.equal({ of: original.id, at: original.at, by: BY });
    }
    for (const original of originals.values()) expect((await history.get(original.id))?.replays, `replays of ${original.id}`).to.equal(1);

    // Each replay is a new entry, linked to its original, which holds the same body.
    await history.flush();
    const replays = await findAll(history, { from: filter.to as number });
    expect(replays).to.have.length(failing.length);
    const linked = new Set<string>();
    for (const replay of replays) {
      const original = [...originals.values()].find((entry) => entry.id === replay.replayOf);
      expect(original, `the original of ${replay.id}`).to.not.equal(undefined);
      expect(replay).to.deep.include({ status: 200, replayedBy: BY, replays: 0 });
      expect(replay.code).to.equal(undefined);
      // In queue mode, the job that ran it.
      expect(replay.jobId !== undefined, `a job for ${replay.id}`).to.equal(queued);
      expect(replay.data.body).to.deep.equal(original?.data.body);
      linked.add(replay.replayOf as string);
    }
    expect(linked.size, 'originals replayed, one entry each').to.equal(failing.length);

    // A second bulk replay of the same filter runs none of them again: a double click is no double run.
    const second = await history.replayAll(filter, { by: BY, perSecond: 1000, concurrency: 16 }).done;
    expect(second).to.deep.include({ state: 'done', matched: failing.length, replayed: 0, failed: 0, refused: 0, skipped: failing.length });
    expect(workflow.runsAfterFix).to.have.length(failing.length);

    // Only on purpose, with `again`, does each run once more.
    const third = await history.replayAll(filter, { by: BY, perSecond: 1000, concurrency: 16, again: true }).done;
    expect(third).to.deep.include({ state: 'done', matched: failing.length, replayed: failing.length, skipped: 0 });
    expect([...runsPerOrder(workflow)].sort(([a], [b]) => a - b)).to.deep.equal(failing.map((n) => [n, 2]));
    for (const original of originals.values()) expect((await history.get(original.id))?.replays, `replays of ${original.id}`).to.equal(2);
  } finally {
    progress.stop();
  }
}

/** Fixes, bulk replays slowly, stops it once some ran: it starts no more, and what ran is what it counted. */
export async function expectStoppedMidway(history: WebhookHistory, workflow: OrderWorkflow, { filter, originals }: SentOrders): Promise<void> {
  workflow.fixed = true;
  let bulk: ReturnType<WebhookHistory['replayAll']> | undefined;
  const stopAt = 10;
  const stopOnce = history.onProgress((progress) => {
    if (progress.id === bulk?.id && progress.replayed >= stopAt) bulk.stop();
  });
  try {
    bulk = history.replayAll(filter, { by: BY, perSecond: 50, concurrency: 2 });
    const done = await bulk.done;
    expect(done.state).to.equal('stopped');
    expect(done.replayed).to.be.at.least(stopAt).and.below(originals.size);
    expect(done).to.deep.include({ failed: 0, refused: 0, skipped: 0 });
    expect(workflow.runsAfterFix, 'runs of the stopped bulk replay').to.have.length(done.replayed + done.failed);
    let claimed = 0;
    for (const original of originals.values()) claimed += (await history.get(original.id))?.replays ?? 0;
    expect(claimed, 'originals claimed').to.equal(done.replayed);
  } finally {
    stopOnce();
  }
}
