/**
 * What queue mode needs of its store besides BullMQ's jobs, one contract for Redis and PostgreSQL: the atomic
 * admission of a call (a repeat, a reused key, one run too many), the leases of a workflow's concurrency slots, the
 * marks of calls refused while their job was on its way, the reply channel between workers and waiting web
 * instances, and where a binary store keeps its files. The web side and the worker are written once against it; a
 * store's own folder holds only what talks to its database.
 */
import type { Job, Processor, Queue, Worker } from 'bullmq';
import type { Confirmation } from '../../redis/replica-acks.js';
import type { WebhookJobData, WebhookJobResult } from '../job-data.js';
import type { BinaryStoreHost } from '../binary/store.js';
import type { OutageLog } from './outage-log.js';
import type { Keyring } from '../../core/sealing.js';

/**
 * How a reply reaches its waiting web instance. A reply channel can be published on by more roles than may write the
 * store (any role that may connect can NOTIFY; a Redis user allowed to PUBLISH), so its messages alone prove nothing.
 * `sealed`: the queue has a keyring, every reply is sealed and bound to its job, so it travels in the message itself
 * (a large one on PostgreSQL in a row). `stored`: without one, every reply is written to the store and the message
 * only names where; the listener takes it from there and ignores any message that carries a reply itself, so only a
 * writer of the store can put words in a caller's answer.
 */
export type ReplyMode = 'sealed' | 'stored';

/** The reply mode of a queue or worker with this keyring: decided once, alike on the web side and the worker. */
export function replyModeOf(keyring: Keyring | undefined): ReplyMode {
  return keyring === undefined ? 'stored' : 'sealed';
}

/**
 * `duplicate` (the job exists), `retake` (it exists, but its caller was refused: it must not stand for this call),
 * `mismatch` (the job, or the call being stored under the key, has another body), `pending` (the first call with
 * this key is being stored right now), `full` (maxQueued runs wait already) or `ok` (this call stores the job; with
 * a key, it holds the claim).
 */
export type Admission = 'duplicate' | 'retake' | 'mismatch' | 'pending' | 'full' | 'ok';

export interface AdmitRequest {
  workflowId: string;
  jobId: string;
  /** The workflow's settings.maxQueued; undefined: no cap. */
  maxQueued: number | undefined;
  /** Whether the run counts among the workflow's unfinished runs (it has a maxQueued). */
  track: boolean;
  /** How old an unfinished entry may grow before it counts as lost (the idempotency window). */
  staleMs: number;
  /**
   * The body's fingerprint of a call with an idempotency key; undefined without one. One made with an HMAC key is
   * prefixed with the key's id (`k1:…`); two with different prefixes cannot be compared and count as the same body.
   */
  fingerprint: string | undefined;
  /** This store attempt's own id (also in the job's data as `storeId`). */
  storeId: string;
  /** How long a claim stands for a call still being stored (its enqueue deadline). */
  claimMs: number;
}

export type QueueJob = Job<WebhookJobData, WebhookJobResult>;
export type QueueProcessor = Processor<WebhookJobData, WebhookJobResult>;

/** BullMQ's worker settings queue mode passes on; the connection is the store's. */
export interface BullWorkerSettings {
  concurrency: number;
  lockDuration: number;
  stalledInterval: number;
  maxStalledCount: number;
}

/** One side's connections to the store (a web queue's, or a worker's), opened and ready. */
export interface QueueStoreLink {
  readonly kind: 'redis' | 'postgres';
  /** A BullMQ queue of this queue name on the store (the web side's, or a worker's for its own reads). */
  newQueue(): Queue<WebhookJobData, WebhookJobResult>;
  newWorker(processor: QueueProcessor, settings: BullWorkerSettings): Worker<WebhookJobData, WebhookJobResult>;
  /** One atomic step (a script, a statement): see Admission. */
  admit(request: AdmitRequest): Promise<Admission>;
  /** Gives up the claim on the job id's idempotency key, if `storeId` still holds it. Never rejects. */
  unclaim(jobId: string, storeId: string): Promise<void>;
  /** Takes (or renews) one of the workflow's `limit` slots for the job until now + leaseMs; false: all are taken. */
  acquireSlot(workflowId: string, jobId: string, limit: number, leaseMs: number): Promise<boolean>;
  /** Frees the job's slot; `ended`: the run ended for good, so it no longer counts as unfinished either. */
  releaseSlot(workflowId: string, jobId: string, ended: boolean): Promise<void>;
  /**
   * Marks a store attempt whose caller was refused 503 while the job was on its way, for `ttlMs`; sent behind the
   * job on the same connection where the store orders writes so. Never rejects.
   */
  markRefused(storeId: string, ttlMs: number): void;
  wasRefused(storeId: string): Promise<boolean>;
  /**
   * Whether a write that failed with `error` may have been carried out all the same: the connection ended after the
   * write was sent and before its answer came. A failure before it left, or the store's own refusal, is not one.
   */
  mayHaveStored(error: unknown): boolean;
  /** The reply channel of one web instance. */
  replyChannel(instanceId: string): string;
  /**
   * Hears the channel's replies, in the order they were sent (a `stored` one read from the store, and a message that
   * carries a reply itself ignored); `resumed` is called after the link to the store was lost and is back (messages
   * sent meanwhile may be lost: waiting calls look at their jobs).
   */
  listen(channel: string, message: (text: string) => void, resumed: () => void): Promise<void>;
  /**
   * Sends one reply to a reply channel (`stored`: written to the store, the message naming it, in one atomic step); a
   * reply of any size arrives whole or not at all.
   */
  publish(channel: string, message: string): Promise<void>;
  /** What the binary store is attached to (see BinaryStore.attach). */
  readonly binaryHost: BinaryStoreHost;
  /** Confirms writes on replicas before a call is answered; undefined when the `replicas` option is 0 or unsupported. */
  confirmReplicas: (() => Promise<Confirmation>) | undefined;
  /**
   * A worker's store outages, told once each (its first failure, and its end once the store answers a probe): BullMQ's
   * errors, its connections' losses and its statements' failures go here, never one log line each. Undefined on the
   * web side, whose calls report the outage themselves (503).
   */
  readonly outage: OutageLog | undefined;
  /** Closes the link's own connections (BullMQ's queue and worker are closed by their owners first). */
  close(): Promise<void>;
}

/** A link being opened. */
export interface OpeningLink {
  /** Resolves once every connection is ready; rejects when one cannot be opened, or when closed meanwhile. */
  link: Promise<QueueStoreLink>;
  /** Closes whatever is open, also while still opening. */
  close(): void;
}
