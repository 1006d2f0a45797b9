/**
 * `middleware.history`: finding kept calls (the store filters; a sealed call's body is judged once opened, so a
 * page is filled from as many store pages as it takes, up to a bound), opening one, replaying one or many. Input
 * from a host or the console is checked here, once: a bad filter is a TypeError naming it.
 */
import type {
  BulkReplay, BulkReplayOptions, BulkReplayProgress, HistoryEntry, HistoryFilter, HistoryPage, HistoryRecord, ReplayOptions, ReplayResult, WebhookHistory,
} from '../../core/history.js';
import { errorFields } from '../../core/logger.js';
import { BulkReplayRun } from './bulk-replay.js';
import { HISTORY_ID } from './ids.js';
import { bodyTest, pointerTokens } from './matches.js';
import { replayCall, type ReplayContext } from './replay.js';
import { storeAnswer } from './store-calls.js';

/** Store pages one find may read to fill its page; past it, the page is returned short, with its cursor. */
const MAX_STORE_PAGES = 20;
/** Bulk replays this instance remembers (the newest). */
const KEPT_BULK = 20;

function bad(message: string): never {
  throw new TypeError(`workflow-webhooks: history: ${message}`);
}

const TEXT_FIELDS = ['workflowId', 'nodeName', 'method', 'code', 'requestId', 'replayOf'] as const;

/** The filter as the stores take it, checked; unknown fields are refused rather than ignored. */
export function checkedFilter(given: HistoryFilter | undefined): HistoryFilter {
  if (given === undefined) return {};
  if (typeof given !== 'object' || given === null) bad('a filter is an object.');
  const filter: HistoryFilter = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if ((TEXT_FIELDS as readonly string[]).includes(name)) {
      if (typeof value !== 'string' || value === '' || value.length > 500) bad(`filter.${name} must be a non-empty string of at most 500 characters.`);
      (filter as Record<string, unknown>)[name] = name === 'method' ? value.toUpperCase() : value;
    } else if (name === 'statusClass') {
      if (![0, 1, 2, 3, 4, 5].includes(value as number)) bad('filter.statusClass must be 0 (no answer sent) or 1 to 5.');
      filter.statusClass = value as HistoryFilter['statusClass'];
    } else if (name === 'from' || name === 'to') {
      if (typeof value !== 'number' || !Number.isFinite(value)) bad(`filter.${name} must be a time in epoch milliseconds.`);
      filter[name] = value;
    } else if (name === 'body') {
      const { pointer, equals } = value as { pointer?: unknown; equals?: unknown };
      if (typeof pointer !== 'string' || pointer.length > 500 || pointerTokens(pointer) === undefined) bad('filter.body.pointer must be a JSON pointer of at most 500 characters, such as "/order/status".');
      if (equals !== null && !['string', 'number', 'boolean'].includes(typeof equals)) bad('filter.body.equals must be a string, number, boolean or null.');
      filter.body = { pointer, equals: equals as string | number | boolean | null };
    } else {
      bad(`filter.${name} is not a filter; filters are ${[...TEXT_FIELDS, 'statusClass', 'from', 'to', 'body'].join(', ')}.`);
    }
  }
  return filter;
}

function checkedBy(by: unknown): string {
  if (typeof by !== 'string' || by.trim() === '' || by.length > 200) bad('a replay needs by: who replays it (1 to 200 characters).');
  return by;
}

function checkedRate(name: string, value: unknown, fallback: number, most: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > most) bad(`${name} must be a number above 0, at most ${most}.`);
  return value;
}

export function createHistoryApi(context: ReplayContext): WebhookHistory {
  const { recorder } = context;
  const { store } = recorder.settings;
  const bulk = new Map<string, BulkReplayRun>();
  const listeners = new Set<(progress: BulkReplayProgress) => void>();
  const tell = (progress: BulkReplayProgress): void => {
    for (const listener of [...listeners]) {
      try {
        listener(progress);
      } catch {
        // One listener's failure is its own.
      }
    }
  };

  /** One call that does not open (a key no longer listed, data changed) is left out of a page and logged, not the page. */
  function openedOrTold(record: HistoryRecord): HistoryEntry | undefined {
    try {
      return recorder.opened(record);
    } catch (error) {
      context.logger.warn({ ...errorFields(error), id: record.id }, 'workflow-webhooks: history: a kept call was left out of a page: it does not open');
      return undefined;
    }
  }

  async function find(given?: HistoryFilter, page: { cursor?: string; limit?: number } = {}): Promise<HistoryPage> {
    const filter = checkedFilter(given);
    const limit = page.limit ?? 50;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 500) bad('limit must be a whole number from 1 to 500.');
    if (page.cursor !== undefined && (typeof page.cursor !== 'string' || !HISTORY_ID.test(page.cursor))) bad('cursor must be the `next` of an earlier page.');
    const entries: HistoryEntry[] = [];
    const bodyMatches = filter.body === undefined ? undefined : bodyTest(filter.body);
    let before = page.cursor;
    for (let pages = 0; pages < MAX_STORE_PAGES; pages += 1) {
      const query = before === undefined ? { ...filter, limit: limit - entries.length } : { ...filter, before, limit: limit - entries.length };
      const found = await storeAnswer(() => store.find(query));
      for (const record of found.records) {
        const entry = openedOrTold(record);
        if (entry === undefined) continue;
        // A sealed call's body is judged here, once opened; a clear one was judged by the store, and is again.
        if (bodyMatches === undefined || bodyMatches(entry.data)) entries.push(entry);
      }
      before = found.next;
      if (before === undefined) return { entries };
      if (entries.length >= limit) break;
    }
    return { entries, next: before };
  }

  return {
    find,
    async get(id: string): Promise<HistoryEntry | undefined> {
      if (typeof id !== 'string' || !HISTORY_ID.test(id)) return undefined;
      const record = await storeAnswer(() => store.get(id));
      return record === undefined ? undefined : recorder.opened(record);
    },
    replay(id: string, options: ReplayOptions): Promise<ReplayResult> {
      const by = checkedBy(options?.by);
      return recorder.replaying(replayCall(context, id, { by, again: options.again === true }));
    },
    replayAll(given: HistoryFilter, options: BulkReplayOptions): BulkReplay {
      const by = checkedBy(options?.by);
      const filter = checkedFilter(given);
      const run = new BulkReplayRun({ find, replay: (id, one) => recorder.replaying(replayCall(context, id, one)) }, filter, {
        by, again: options.again === true,
        perSecond: checkedRate('perSecond', options.perSecond, 5, 1000),
        concurrency: Math.floor(checkedRate('concurrency', options.concurrency, 4, 64)),
      }, tell);
      bulk.set(run.id, run);
      for (const id of [...bulk.keys()].slice(0, Math.max(0, bulk.size - KEPT_BULK))) bulk.delete(id);
      tell(run.progress());
      return run;
    },
    bulkReplays: () => [...bulk.values()].reverse().map((run) => run.progress()),
    bulkReplay: (id: string) => bulk.get(id),
    onProgress(listener: (progress: BulkReplayProgress) => void): () => void {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
    flush: () => recorder.writer.flush(),
  };
}
