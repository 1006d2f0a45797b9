/**
 * What a call the queue could not store is answered: 503 QUEUE_UNAVAILABLE with the true reason (the caller's
 * deadline ran out; Redis or PostgreSQL refused or could not be reached, and why; the replicas did not confirm the
 * job), 429 TOO_MANY_RUNS for a workflow at its cap (settings.maxQueued), 422 for data the store cannot keep (a NUL
 * character on PostgreSQL), and 500 for data that cannot be serialised. A refusal that came back from the store in
 * milliseconds is never told as a wait that ran out; the store's own reply stays in the cause, which the middleware
 * logs.
 */
import { WebhookError } from '../core/errors.js';
import { redisFailureReason } from '../redis/failure-reasons.js';
import { unconfirmedReason, type Confirmation } from '../redis/replica-acks.js';
import type { ResolvedQueueOptions } from './options.js';

/**
 * The slowest a binary store may take a call's files, in bytes per millisecond (1 MiB/s): a file's time grows with its
 * size and with the uploads beside it, so it is not held to `enqueueTimeoutMs`, which is for storing the job.
 */
const FILE_BYTES_PER_MS = 1024 * 1024 / 1000;

/**
 * How long a call waits for its answer: storing the job, with replica acknowledgement the replicas' as well, and for
 * `fileBytes` going to the binary store, their time at the slowest rate a store may take them.
 */
export function answerWithinMs(options: ResolvedQueueOptions, fileBytes = 0): number {
  return options.enqueueTimeoutMs + (options.replicas > 0 ? options.replicaTimeoutMs : 0) + Math.ceil(fileBytes / FILE_BYTES_PER_MS);
}

/** The store's name in a caller's words. */
function storeName(options: ResolvedQueueOptions): string {
  return options.store === 'postgres' ? 'PostgreSQL' : 'Redis';
}

/** The SQLSTATE of a PostgreSQL failure, or of its first cause that has one. */
function postgresCode(error: unknown): unknown {
  let code: unknown = (error as { code?: unknown } | null)?.code;
  for (let cause: unknown = error; code === undefined && cause instanceof Error; cause = cause.cause) code = (cause as { code?: unknown }).code;
  return code;
}

/**
 * PostgreSQL refused the job for a character in its data it cannot keep: `jsonb` has no U+0000 (22P05, untranslatable
 * character), nor has text (22021). The run's data, not the database: the same call is refused again, so it is told
 * as the call's, without Retry-After; nothing was stored (the statement was rolled back).
 */
const UNSTORABLE_CHARACTER = new Set(['22P05', '22021']);

function unstorable(cause: unknown): WebhookError {
  return new WebhookError('QUEUE_PAYLOAD_UNSTORABLE', 'The run\'s data holds a character the webhook queue\'s PostgreSQL cannot store (a NUL, U+0000: jsonb keeps none), in the call\'s body, query or form fields, or in the state a resumed run was suspended with. It will not run.', {
    hint: 'Send data without NUL characters (binary content as a file upload, or encoded as base64), and suspend runs with a state without them; the same data is refused again. Sealed job data (the queue\'s encryption option) keeps them.',
    cause,
  });
}

/** Why PostgreSQL did not take a write, worded to follow "could not be stored: "; its own reply stays in the cause. */
function postgresFailureReason(error: unknown): string {
  const code = postgresCode(error);
  if (typeof code === 'string' && code.startsWith('57P')) return 'PostgreSQL is shutting down or restarting';
  if (typeof code === 'string' && code.startsWith('53')) return 'PostgreSQL is out of resources (connections, memory or disk)';
  if (typeof code === 'string' && code === '25006') return 'PostgreSQL is read-only (a standby, or a failover under way)';
  return 'PostgreSQL could not be reached or refused the write';
}

/** A 503 for a run the store did not take, `reason` worded to follow "could not be stored: ". */
function notStored(options: ResolvedQueueOptions, reason: string, cause?: unknown): WebhookError {
  return new WebhookError('QUEUE_UNAVAILABLE', `The run could not be stored: ${reason}. It will not run.`, {
    hint: `Try again in a moment; the webhook queue's ${storeName(options)} did not take the call.`,
    headers: { 'retry-after': String(options.retryAfterSeconds) },
    cause,
  });
}

/**
 * Not stored: without a cause, the call's deadline (`withinMs`, when its files lengthened it) ran out; with one, the
 * store failed, as `cause` says.
 */
export function unavailable(options: ResolvedQueueOptions, cause?: unknown, withinMs = answerWithinMs(options)): WebhookError {
  if (cause === undefined) return notStored(options, `${storeName(options)} did not acknowledge it within ${withinMs} ms`);
  return notStored(options, options.store === 'postgres' ? postgresFailureReason(cause) : redisFailureReason(cause), cause);
}

/**
 * Not stored: the queue's connection to its store was not open (down, or not reached yet) until the deadline;
 * `cause`, when known, is why the last try to connect failed.
 */
export function unreachable(options: ResolvedQueueOptions, cause?: unknown, withinMs = answerWithinMs(options)): WebhookError {
  return notStored(options, `${storeName(options)} could not be reached within ${withinMs} ms`, cause);
}

export function tooMany(options: ResolvedQueueOptions, workflowId: string, maxQueued: number): WebhookError {
  return new WebhookError('TOO_MANY_RUNS', `Workflow "${workflowId}" already has ${maxQueued} runs waiting (settings.maxQueued); this call was not stored.`, {
    hint: 'Try again later, once the waiting runs have started.',
    headers: { 'retry-after': String(options.retryAfterSeconds) },
  });
}

/** Stored on the primary, but not confirmed on the replicas (option `replicas`): too few connected, or behind. */
export function unconfirmed(options: ResolvedQueueOptions, confirmation: Confirmation): WebhookError {
  const reason = unconfirmedReason(confirmation, { replicas: options.replicas, timeoutMs: options.replicaTimeoutMs });
  return new WebhookError('QUEUE_UNAVAILABLE', `The run could not be stored safely: Redis stored it, but ${reason}. It will not run.`, {
    hint: 'Try again in a moment; the webhook queue\'s Redis replicas are behind or not connected.',
    headers: { 'retry-after': String(options.retryAfterSeconds) },
  });
}

/**
 * What the caller is answered when the call was not stored: the library's own refusals as they are; data that
 * cannot be serialised (it never should: the item is parsed JSON, its depth bounded) as the library's failure, a 500
 * with its cause; anything else as Redis's 503.
 */
export function refusalOf(error: unknown, options: ResolvedQueueOptions): WebhookError {
  if (error instanceof WebhookError) return error;
  // JSON.stringify's own refusals: too deep (RangeError), a BigInt or a circle (TypeError).
  if (error instanceof RangeError || (error instanceof TypeError && /BigInt|circular|JSON/i.test(error.message))) {
    return new WebhookError('INTERNAL_ERROR', `The call could not be stored as a job: ${error.message}`, { cause: error });
  }
  if (options.store === 'postgres' && UNSTORABLE_CHARACTER.has(postgresCode(error) as string)) return unstorable(error);
  return unavailable(options, error);
}
