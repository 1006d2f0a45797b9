/**
 * The recent-calls store contract: where the console keeps the last calls, bounded. The embedded MemoryCallLog
 * keeps one process's calls; `RedisCallLog` (workflow-webhooks/redis) keeps every instance's in one list. Every
 * store passes the same conformance suite (spec/support/call-log-contract/).
 */
import type { CallRecord } from '../protocol.js';

export type { CallRecord };

/** Hears each call appended, on any instance the store spans; returns the unsubscribe. */
export type CallRecordListener = (call: CallRecord) => void;

export interface CallLog {
  /** How many calls it keeps: the oldest go first. */
  readonly capacity: number;
  /** Adds a call; a store that fails rejects, and the console reports it to its logger (a call is never held up). */
  append(call: CallRecord): Promise<void>;
  /** The newest calls first, at most `limit` (default and most: `capacity`). */
  recent(limit?: number): Promise<CallRecord[]>;
  /** Hears every call appended from now on, by any writer of the store. */
  subscribe(listener: CallRecordListener): () => void;
  /** Releases what the store holds open (its subscription connection). */
  close?(): Promise<void>;
}
