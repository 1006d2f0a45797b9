/**
 * The binary store contract: where files too large to travel inside a job wait for the worker. One contract, three
 * stores shipped (Redis, PostgreSQL, a shared directory), and one conformance suite in spec/ that all pass; a host
 * may write its own (object storage) against the same contract.
 */
import type { QueueCommands } from '../redis-route.js';

/** The content to store: in memory, or a file on this machine. */
export interface BinarySource {
  data?: Buffer | undefined;
  path?: string | undefined;
}

/** What a stored file is read back as: its bytes, or a file the reader may open (a shared directory). */
export type StoredBinary = { data: Buffer } | { path: string };

export interface BinaryStore {
  /** Names the store in job data, so a worker configured with another store says so instead of misreading. */
  readonly kind: string;
  /** The largest file it takes, in bytes; a larger one is refused at the call with 413. */
  readonly maxBytes: number;
  /** Stores one file of `bytes` bytes; resolves with the reference a job holds. */
  put(source: BinarySource, bytes: number): Promise<string>;
  get(ref: string): Promise<StoredBinary>;
  /** Removes stored files; references already gone are no error. */
  remove(refs: readonly string[]): Promise<void>;
  /**
   * Called once by the queue and the worker that use the store, with their own store: on Redis its commands (a plain
   * node-redis `sendCommand(args, options?)`, routed to the node that holds the queue on a cluster or Sentinel) and
   * key prefix; on PostgreSQL a statement runner and the table the queue's files go to. A store that needs neither
   * ignores it.
   */
  attach?(host: BinaryStoreHost): void;
}

/** The Redis a queue runs on, as a binary store is attached to it. */
export interface RedisBinaryHost {
  kind: 'redis';
  client: QueueCommands;
  key(id: string): string;
}

/** The PostgreSQL database a queue runs on, as a binary store is attached to it. */
export interface PostgresBinaryHost {
  kind: 'postgres';
  /** Runs one statement (with a deadline) on the queue's pool. */
  query(sql: string, values: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  /** The schema of the library's tables, as an SQL identifier (it needs no quoting). */
  schema: string;
  /** The queue's name: files of several queues share the table. */
  queue: string;
}

export type BinaryStoreHost = RedisBinaryHost | PostgresBinaryHost;
