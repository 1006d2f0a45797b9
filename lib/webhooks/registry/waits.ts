/**
 * The memory registry's wait entries (waiting webhooks): one Map, bounded by `maxWaiting`, swept once a second while
 * it holds anything, so expired entries leave memory without a call having to find them.
 */
import { WebhookError } from '../../core/errors.js';
import type { WaitClaim, WaitEntry, WaitExpiredListener, WaitStatus } from '../../core/waits.js';

/** How often expired entries are removed. */
const SWEEP_MS = 1000;

export const DEFAULT_MAX_WAITING = 100_000;

/** The registry option `maxWaiting`: a positive whole number, default 100 000. */
export function checkMaxWaiting(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_WAITING;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`workflow-webhooks: option maxWaiting must be a positive integer; got ${JSON.stringify(value) ?? String(value)}.`);
  }
  return value;
}

export const DEFAULT_WAITS_LISTED = 1000;
const MAX_WAITS_LISTED = 100_000;

/** `listWaits()`'s limit: a whole number from 1 to 100 000, default 1000. */
export function checkWaitListLimit(options: { limit?: number } | undefined): number {
  const value = options?.limit;
  if (value === undefined) return DEFAULT_WAITS_LISTED;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_WAITS_LISTED) {
    throw new TypeError(`workflow-webhooks: listWaits limit must be a whole number from 1 to ${MAX_WAITS_LISTED}; got ${JSON.stringify(value) ?? String(value)}.`);
  }
  return value;
}

export function tooManyWaiting(maxWaiting: number): WebhookError {
  return new WebhookError('TOO_MANY_WAITING', `The registry already holds ${maxWaiting} waiting runs (maxWaiting), so this run cannot wait.`, {
    hint: 'Let waits expire sooner (timeoutMs, expiresInMs), or raise the registry option maxWaiting.',
  });
}

/** Entries travel as JSON in a remote store: the memory one copies them the same way, so both behave alike. */
function copy(entry: WaitEntry): WaitEntry {
  return JSON.parse(JSON.stringify(entry)) as WaitEntry;
}

export class MemoryWaits {
  readonly #entries = new Map<string, WaitEntry>();
  readonly #listeners = new Set<WaitExpiredListener>();
  readonly #maxWaiting: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(maxWaiting: number) {
    this.#maxWaiting = maxWaiting;
  }

  get size(): number {
    return this.#entries.size;
  }

  put(entry: WaitEntry, expect?: WaitStatus): boolean {
    const stored = this.get(entry.waitId);
    if (expect !== undefined && stored?.status !== expect) return false;
    if (stored === undefined && this.#entries.size >= this.#maxWaiting) {
      this.#sweep();
      if (this.#entries.size >= this.#maxWaiting) throw tooManyWaiting(this.#maxWaiting);
    }
    this.#entries.set(entry.waitId, copy(entry));
    this.#timer ??= setInterval(() => this.#sweep(), SWEEP_MS).unref();
    return true;
  }

  get(waitId: string): WaitEntry | undefined {
    const entry = this.#entries.get(waitId);
    return entry === undefined || entry.expiresAt <= Date.now() ? undefined : copy(entry);
  }

  claim(waitId: string, resumedAt: number): WaitClaim {
    const entry = this.get(waitId);
    if (entry?.status !== 'waiting') return { claimed: false, entry };
    entry.status = 'running';
    entry.resumedAt = resumedAt;
    this.#entries.set(waitId, copy(entry));
    return { claimed: true, entry };
  }

  /** The `waiting` entries not yet expired, soonest expiry first (ties by id, as a Redis sorted set orders them). */
  listWaiting(limit: number): WaitEntry[] {
    const now = Date.now();
    const waiting = [...this.#entries.values()].filter((entry) => entry.status === 'waiting' && entry.expiresAt > now);
    waiting.sort((a, b) => a.expiresAt - b.expiresAt || (a.waitId < b.waitId ? -1 : a.waitId > b.waitId ? 1 : 0));
    return waiting.slice(0, limit).map(copy);
  }

  onExpired(listener: WaitExpiredListener): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  /** Removes every entry now (the registry is closed). */
  clear(): void {
    this.#entries.clear();
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [waitId, entry] of this.#entries) {
      if (entry.expiresAt > now) continue;
      this.#entries.delete(waitId);
      if (entry.status !== 'waiting') continue;
      for (const listener of this.#listeners) {
        try {
          listener(copy(entry));
        } catch {
          // A listener's failure is its own; the sweep goes on.
        }
      }
    }
    if (this.#entries.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
