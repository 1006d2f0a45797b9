/**
 * The middleware's `history` option, checked and defaulted once at the factory. Nothing is kept without a store;
 * with one, every production call and resume that passed its guards is kept (a workflow's `settings.history` may
 * say otherwise), with no body, file bytes or answer unless asked: those hold what callers sent.
 */
import { hostname } from 'node:os';
import type { HistoryStore } from '../../core/history.js';
import { resolveKeyring, type JobEncryptionOptions, type Keyring } from '../../core/sealing.js';
import type { HistoryKeep } from '../../core/history.js';

export interface HistoryOptions {
  /** Where calls are kept: `new MemoryHistoryStore()`, `RedisHistoryStore`, `PostgresHistoryStore`. */
  store: HistoryStore;
  /** Which calls are kept: `all` (default), `failed` (an error code, or no answer sent) or `none` (workflows opt in by `settings.history`). */
  keep?: HistoryKeep;
  /** Bytes of a body's JSON kept (default 0: none); a larger body keeps its start and cannot be replayed. */
  bodyBytes?: number;
  /** Bytes of each file kept (default 0: names, types and sizes only); a larger file keeps none. */
  fileBytes?: number;
  /** Bytes of the workflow's answer (its output items, as JSON) kept (default 0: none). */
  answerBytes?: number;
  /**
   * Seals what a call sent and got (AES-256-GCM) before it reaches the store; the keys as the queue's `encryption`
   * option takes them. Default: the queue executor's keys, when it has some.
   */
  encryption?: JobEncryptionOptions;
  /** Names this instance in its calls (default `<hostname>:<pid>`). */
  instance?: string;
  /** Calls are written in batches this often, in ms (default 200). */
  flushMs?: number;
  /** At most this many calls wait for the store while it is away (default 10 000); past it the oldest are dropped, and logged. */
  maxPending?: number;
}

export interface ResolvedHistory {
  store: HistoryStore;
  keep: HistoryKeep;
  bodyBytes: number;
  fileBytes: number;
  answerBytes: number;
  keyring: Keyring | undefined;
  instance: string;
  flushMs: number;
  maxPending: number;
}

const KNOWN = new Set(['store', 'keep', 'bodyBytes', 'fileBytes', 'answerBytes', 'encryption', 'instance', 'flushMs', 'maxPending']);
const MAX_BYTES = 64 * 1024 * 1024;

function fail(message: string): never {
  throw new TypeError(`workflow-webhooks: option history.${message}`);
}

function whole(given: Record<string, unknown>, name: string, fallback: number, least: number, most: number): number {
  const value = given[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least || value > most) {
    fail(`${name} must be a whole number from ${least} to ${most}; got ${JSON.stringify(value) ?? String(value)}.`);
  }
  return value;
}

/** The resolved option; undefined when the middleware keeps no history. `queueKeyring`: the queue executor's keys. */
export function resolveHistory(given: HistoryOptions | undefined, queueKeyring: Keyring | undefined): ResolvedHistory | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null) fail('is { store, keep?, bodyBytes?, fileBytes?, answerBytes?, encryption?, … }.');
  const raw = given as unknown as Record<string, unknown>;
  for (const name of Object.keys(raw)) {
    if (!KNOWN.has(name)) fail(`${name} is not an option of history; it takes ${[...KNOWN].join(', ')}.`);
  }
  const store = given.store as Partial<HistoryStore> | undefined;
  if (typeof store?.append !== 'function' || typeof store.find !== 'function' || typeof store.claimReplay !== 'function') {
    fail('store must be a history store (new MemoryHistoryStore(), RedisHistoryStore, PostgresHistoryStore).');
  }
  const keep = given.keep ?? 'all';
  if (keep !== 'all' && keep !== 'failed' && keep !== 'none') fail(`keep must be "all", "failed" or "none"; got ${JSON.stringify(keep)}.`);
  const instance = given.instance ?? `${hostname()}:${process.pid}`;
  if (typeof instance !== 'string' || instance === '' || instance.length > 200) fail('instance must be a name of 1 to 200 characters.');
  return {
    store: given.store,
    keep,
    bodyBytes: whole(raw, 'bodyBytes', 0, 0, MAX_BYTES),
    fileBytes: whole(raw, 'fileBytes', 0, 0, MAX_BYTES),
    answerBytes: whole(raw, 'answerBytes', 0, 0, MAX_BYTES),
    keyring: given.encryption === undefined ? queueKeyring : resolveKeyring(given.encryption, 'workflow-webhooks: option history'),
    instance,
    flushMs: whole(raw, 'flushMs', 200, 1, 60_000),
    maxPending: whole(raw, 'maxPending', 10_000, 1, 1_000_000),
  };
}
