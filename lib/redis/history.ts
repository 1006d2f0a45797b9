/**
 * Call history shared by every instance, in Redis (one server, Cluster or Sentinel): the HistoryStore contract over
 * the scripts of history-scripts.ts. A batch is one script; a replay's claim is one script; finding reads the index
 * newest first, a chunk a round trip, and filters what it reads with the one reading of filters (recordTest).
 */
import { WebhookError } from '../core/errors.js';
import type {
  HistoryRecord, HistoryRetention, HistoryStore, HistoryStorePage, HistoryStoreQuery, ReplayClaim,
} from '../core/history.js';
import { firstIdAt } from '../webhooks/history/ids.js';
import { recordTest } from '../webhooks/history/matches.js';
import { recordText } from '../webhooks/history/record-text.js';
import { resolveRetention } from '../webhooks/history/retention.js';
import { ScanPauses } from '../webhooks/history/scan-pauses.js';
import { historyUnavailable } from '../webhooks/history/store-calls.js';
import { isReplyError, type RedisClientLike } from './client.js';
import { APPEND, CLAIM_REPLAY, GIVE_BACK_REPLAY, PRUNE, READ_CHUNK } from './history-scripts.js';
import { RedisLink } from './link.js';
import { checkRedisStore } from './options.js';
import type { Script } from './scripts.js';

export interface RedisHistoryStoreOptions extends Partial<HistoryRetention> {
  /**
   * A connected node-redis client (5 or later): `createClient()`, `createCluster()` or `createSentinel()`. The store
   * opens its own connection with `duplicate()` (node-redis 5's Sentinel client has none: the store shares it) and
   * never closes this one: it stays the host's.
   */
  client: RedisClientLike;
  /**
   * Every key starts with it: `<prefix>history` (the index) and `<prefix>history:<id>` (one call). Default
   * `workflow-webhooks:`. On a Redis Cluster a prefix without a hash tag is wrapped in one, so every key of the store
   * shares a slot.
   */
  prefix?: string;
  /** Longest wait for any Redis command before it rejects HISTORY_UNAVAILABLE. Default 2000 ms. */
  commandTimeoutMs?: number;
}

/** Records one find() reads at most: a filter that matches few calls answers in bounded time, with `next` to go on. */
const SCAN_BUDGET = 2_000;
/** Records read per round trip while filtering (without a filter, `limit` and one more). */
const CHUNK = 200;
/** Records one script removes at most, so a trim never holds Redis long; prune() runs it until less went. */
const TRIM_BUDGET = 1_000;

/** Whether a query filters by anything: without a filter every kept call matches, and a page reads `limit` + 1. */
function filters(query: HistoryStoreQuery): boolean {
  return Object.entries(query).some(([name, value]) => value !== undefined && name !== 'limit' && name !== 'before');
}

/** The index's newest-first bounds for a query: below `before` and `to` (exclusive), from `from` on (inclusive). */
function boundsOf(query: HistoryStoreQuery): { max: string; min: string } {
  const upper = [query.before, query.to === undefined ? undefined : firstIdAt(query.to)]
    .filter((bound): bound is string => bound !== undefined).sort()[0];
  return { max: upper === undefined ? '+' : `(${upper}`, min: query.from === undefined ? '-' : `[${firstIdAt(query.from)}` };
}

function fail(name: string, rule: string): never {
  throw new TypeError(`workflow-webhooks/redis: RedisHistoryStore option ${name} ${rule}.`);
}

/** A record as kept (its JSON and its count apart); undefined for one that expired or does not parse. */
function recordOf(json: unknown, replays: unknown): HistoryRecord | undefined {
  if (typeof json !== 'string' || json === '') return undefined;
  try {
    const record = JSON.parse(json) as HistoryRecord;
    record.replays = Number(replays ?? 0);
    return record;
  } catch {
    return undefined;
  }
}

export class RedisHistoryStore implements HistoryStore {
  readonly retention: HistoryRetention;
  readonly #link: RedisLink;
  readonly #index: string;
  readonly #recordPrefix: string;
  #closed = false;

  constructor(options: RedisHistoryStoreOptions) {
    if (typeof options !== 'object' || options === null) fail('object', 'is required: new RedisHistoryStore({ client })');
    const { client, topology, prefix, commandTimeoutMs } = checkRedisStore(options, fail);
    this.retention = resolveRetention({ maxAgeMs: options.maxAgeMs, maxEntries: options.maxEntries }, 10_000, 'RedisHistoryStore');
    this.#index = `${prefix}history`;
    this.#recordPrefix = `${prefix}history:`;
    // Failures reach the caller as rejections (the history writer logs them once per outage): nothing to hear here.
    this.#link = new RedisLink(client, commandTimeoutMs, () => undefined, { topology, key: this.#index });
  }

  /** Keeps the batch and trims the history to its retention, in one script. */
  async append(records: readonly HistoryRecord[]): Promise<void> {
    if (records.length === 0) return;
    const now = Date.now();
    const args = [this.#recordPrefix, String(now), this.#oldestKept(now), String(this.retention.maxEntries), String(TRIM_BUDGET)];
    // The record's text holds its count too; the count kept apart wins when it is read (recordOf).
    for (const record of records) {
      args.push(record.id, recordText(record), String(record.replays), String(Math.floor(record.at) + this.retention.maxAgeMs));
    }
    await this.#script(APPEND, args, 'appending calls to history');
  }

  async get(id: string): Promise<HistoryRecord | undefined> {
    const reply = await this.#command(['HMGET', this.#recordPrefix + id, 'record', 'replays'], 'reading a call of history');
    const [json, replays] = Array.isArray(reply) ? reply as unknown[] : [];
    return recordOf(json, replays);
  }

  /**
   * Reads the index newest first, a chunk a round trip, and keeps what matches. It stops at `limit`, or once it has
   * read SCAN_BUDGET records (then with fewer and `next`): a filter the index cannot narrow (all but `from`/`to`;
   * `requestId` too) costs at most that per page, and the caller goes on from `next`.
   */
  async find(query: HistoryStoreQuery): Promise<HistoryStorePage> {
    const limit = Math.floor(query.limit);
    if (!(limit >= 1)) return { records: [] };
    const filtered = filters(query);
    const bounds = boundsOf(query);
    let { max } = bounds;
    const records: HistoryRecord[] = [];
    // Each call read is parsed in this process: a chunk of large bodies gives the event loop turns.
    const pauses = new ScanPauses();
    const matches = recordTest(query);
    for (let read = 0; read < SCAN_BUDGET;) {
      const count = Math.min(filtered ? CHUNK : Math.min(CHUNK, limit - records.length + 1), SCAN_BUDGET - read);
      const reply = await this.#script(READ_CHUNK, [this.#recordPrefix, max, bounds.min, String(count)], 'finding calls in history');
      const chunk = Array.isArray(reply) ? reply as unknown[] : [];
      for (let at = 0; at < chunk.length; at += 3) {
        read += 1;
        const record = recordOf(chunk[at + 1], chunk[at + 2]);
        if (pauses.due()) await pauses.pause();
        if (record === undefined || !matches(record)) continue;
        records.push(record);
        // More may follow when this chunk goes on, or when it was full (the index may hold more below it).
        if (records.length === limit) return at + 3 < chunk.length || chunk.length === count * 3 ? { records, next: record.id } : { records };
      }
      if (chunk.length < count * 3) return { records };
      max = `(${String(chunk[chunk.length - 3])}`;
      if (read >= SCAN_BUDGET) return { records, next: String(chunk[chunk.length - 3]) };
    }
    return { records };
  }

  async claimReplay(id: string, again: boolean): Promise<ReplayClaim> {
    const reply = await this.#script(CLAIM_REPLAY, [again ? '1' : '0'], 'claiming a replay', this.#recordPrefix + id);
    const [outcome, replays] = Array.isArray(reply) ? reply as unknown[] : [];
    if (outcome === 'CLAIMED') return { outcome: 'claimed', replays: Number(replays) };
    if (outcome === 'BEFORE') return { outcome: 'replayedBefore', replays: Number(replays) };
    return { outcome: 'missing' };
  }

  async giveBackReplay(id: string): Promise<void> {
    await this.#script(GIVE_BACK_REPLAY, [], 'giving back a replay', this.#recordPrefix + id);
  }

  /** Removes the calls past the retention now, a bounded script at a time, until one removes less than its budget. */
  async prune(now = Date.now()): Promise<number> {
    let gone = 0;
    for (;;) {
      const reply = await this.#script(PRUNE, [this.#recordPrefix, this.#oldestKept(now), String(this.retention.maxEntries), String(TRIM_BUDGET)],
        'pruning history');
      gone += Number(reply);
      if (Number(reply) < TRIM_BUDGET) return gone;
    }
  }

  /** Closes the connection the store opened; the client it was given stays open. */
  close(): Promise<void> {
    this.#closed = true;
    this.#link.close();
    return Promise.resolve();
  }

  /** The smallest id the age retention keeps: ids sort by arrival, so everything below it is older. */
  #oldestKept(now: number): string {
    return firstIdAt(now - this.retention.maxAgeMs);
  }

  /** One script on the index (or on `key`, a record's hash: every key shares the index's slot). */
  #script(script: Script, args: readonly string[], doing: string, key = this.#index): Promise<unknown> {
    this.#checkOpen();
    return this.#link.script(script, [key], args, doing).catch((error: unknown) => { throw unavailable(error); });
  }

  #command(args: readonly string[], doing: string): Promise<unknown> {
    this.#checkOpen();
    return this.#link.command(args, doing).catch((error: unknown) => { throw unavailable(error); });
  }

  #checkOpen(): void {
    if (this.#closed) throw new WebhookError('HISTORY_UNAVAILABLE', 'The Redis history store was closed; it takes no more commands.');
  }
}

/** The link's failure (Redis away, no answer within the deadline, or a reply error) as history's 503. */
function unavailable(cause: unknown): WebhookError {
  return historyUnavailable(cause, 'Redis', isReplyError(cause) ? { message: `Redis refused a history command: ${(cause as Error).message}` } : {});
}
