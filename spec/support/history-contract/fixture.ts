/**
 * What the history store conformance suite shares: the harness a store's spec supplies, records with every field set,
 * a per-test fixture that opens stores and closes them whatever happened, and the readers the cases judge by
 * (`findAll` pages to the end, because a store may stop a page early).
 */
import { expect } from 'chai';
import type { HistoryRecord, HistoryRetention, HistoryStore, HistoryStoreQuery } from '../../../lib/core/history.js';

export interface HistoryStoreHarness {
  /** A new, empty store with this retention (each call gets its own prefix/schema/table namespace). */
  open(retention?: Partial<HistoryRetention>): Promise<HistoryStore>;
  /** Ids of the records the store holds, read from the database directly (keys, rows), not through the store. */
  rawIds(store: HistoryStore): Promise<string[]>;
  /** Everything the store holds, as raw text (every key and value / every row as text), for the secrets specs. */
  rawText(store: HistoryStore): Promise<string>;
  /** A second store over the same data, as another instance would open it (shared stores only). */
  second?(store: HistoryStore): Promise<HistoryStore>;
  /** Stops and restarts the store's server (shared stores only): the outage cases run. */
  outage?: { stop(): Promise<void>; start(): Promise<void> };
}

/**
 * An hour before this process started, to the second: records of the suite arrived a second apart from here, in the
 * past (a store may refuse or expire calls from the future) and well within the default retention of 14 days.
 */
const FIRST_AT = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;

/** An id as lib/webhooks/history/ids.ts makes them (time in base 36, then 64 bits), its tail the index: one per record. */
export function historyIdOf(at: number, index: number): string {
  return `${at.toString(36).padStart(9, '0')}-${index.toString(16).padStart(16, '0')}`;
}

/** A kept call with every field set, so a store must keep them all; its id follows its `at` unless given. */
export function historyRecordOf(index: number, overrides: Partial<HistoryRecord> = {}): HistoryRecord {
  const at = overrides.at ?? FIRST_AT + index * 1000;
  return {
    id: historyIdOf(at, index),
    at,
    workflowId: 'wf-orders',
    nodeName: 'Order intake',
    method: 'POST',
    path: `/webhook/orders/${index}`,
    route: '/webhook/orders/:orderId',
    status: 500,
    code: 'WORKFLOW_FAILED',
    durationMs: 3 + (index % 40),
    requestId: `req-${index}`,
    instance: 'web-1',
    replayOf: historyIdOf(at - 86_400_000, index),
    replayedBy: 'ops@example.com',
    waitId: `wait-${index}`,
    jobId: `job-${index}`,
    replays: 0,
    data: {
      clear: {
        query: { page: '2', token: '[redacted]' },
        headers: { 'content-type': 'application/json', authorization: '[redacted]', 'x-tags': ['a', 'b'] },
        params: { orderId: String(index) },
        bodyKept: 'whole',
        body: { order: { id: index, status: 'paid', lines: [{ sku: 'A-1', qty: 2 }] }, note: null, gift: false },
        bodyKind: 'json',
        bodySize: 96,
        files: [
          { property: 'data', fileName: 'invoice.pdf', mimeType: 'application/pdf', size: 4, data: 'JVBERg==' },
          { property: 'file1', mimeType: 'image/png', size: 70_000 },
        ],
        answer: [{ json: { accepted: false } }],
        answerKept: 'whole',
        error: { code: 'WORKFLOW_FAILED', message: 'Error in workflow', errors: [{ path: '/order/id', message: 'must be string' }] },
      },
    },
    ...overrides,
  };
}

export const idsOf = (records: readonly HistoryRecord[]): string[] => records.map((record) => record.id);

/** The ids, newest first, as every store must list them. */
export const newestFirst = (records: readonly HistoryRecord[]): string[] => idsOf(records).sort().reverse();

/**
 * Every record a query finds, following `next` until there is none: a store that filters what it reads may give a
 * page with fewer than `limit` records and a `next`, so "all found" is judged only at the end. Each page keeps the
 * contract on the way: at most `limit`, newest first, every cursor older than the one before.
 */
export async function findAll(store: HistoryStore, query: HistoryStoreQuery): Promise<HistoryRecord[]> {
  const found: HistoryRecord[] = [];
  let before = query.before;
  for (let pages = 0; pages < 10_000; pages += 1) {
    const page = await store.find({ ...query, before });
    expect(page.records.length, 'a page holds at most `limit` records').to.be.at.most(query.limit);
    expect(idsOf(page.records), 'a page lists newest first').to.deep.equal(newestFirst(page.records));
    found.push(...page.records);
    if (page.next === undefined) return found;
    if (before !== undefined) expect(page.next < before, 'each cursor is older than the one before').to.equal(true);
    before = page.next;
  }
  throw new Error('find() gave `next` 10 000 times');
}

/** How a promise settled within `ms`, or 'pending': a store that hangs fails the case instead of the run. */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<'fulfilled' | 'rejected' | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => { timer = setTimeout(() => resolve('pending'), ms); });
  try {
    return await Promise.race([promise.then(() => 'fulfilled' as const, () => 'rejected' as const), pending]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `probe` until it resolves true, for at most `ms`; what it throws meanwhile counts as not yet. */
export async function until(probe: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One test's stores: opened through the harness, closed after the test whatever happened. */
export interface HistoryFixture {
  readonly harness: HistoryStoreHarness;
  open(retention?: Partial<HistoryRetention>): Promise<HistoryStore>;
  second(store: HistoryStore): Promise<HistoryStore>;
}

export function historyFixture(harness: () => HistoryStoreHarness): HistoryFixture {
  const opened: HistoryStore[] = [];
  const track = (store: HistoryStore): HistoryStore => {
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    const closing = opened.splice(0).map((store) => store.close?.());
    await Promise.all(closing);
  });
  return {
    get harness() { return harness(); },
    open: async (retention) => track(await harness().open(retention)),
    second: async (store) => {
      const { second } = harness();
      if (second === undefined) throw new Error('this harness gives no second store');
      return track(await second(store));
    },
  };
}
