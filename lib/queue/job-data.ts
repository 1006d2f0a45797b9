/**
 * A job is plain data, documented so that dashboards and a host's own tooling can read it: the run of one webhook
 * call (what the worker needs to rebuild the `WebhookRun`), where to send its answer, and how it is scheduled.
 */
import type { ExecutionHint, HttpMethod, ResponseMode, WebhookKind, WorkflowResponse } from '../core/types.js';
import type { RunReplay } from '../core/history.js';
import type { PackedItem } from './binary/pack.js';
import type { RunResume } from '../core/waits.js';
import { itemContext, open, seal, type Keyring, type SealedValue } from '../core/sealing.js';
import type { WorkerStages } from './stages.js';

/** The data of every job; the job's name is the workflow's id. */
export interface WebhookJobData {
  /** The format of this data; a worker refuses a version it does not know rather than misread it. */
  version: 1;
  callId: string;
  workflowId: string;
  workflowName?: string;
  nodeName: string;
  mode: WebhookKind;
  method: HttpMethod;
  outputIndex: number;
  responseMode: ResponseMode;
  /**
   * The trigger item, its binary data inline (base64) or as a binary store reference; without the value of the
   * header the node's authentication checked. Absent when the queue encrypts job data: then it is `sealedItem`.
   */
  item?: PackedItem;
  /** The trigger item encrypted with the queue's `encryption` key (AES-256-GCM), bound to this call's id. */
  sealedItem?: SealedValue;
  /** The call's idempotency key (a signed message id, or the workflow's idempotency header); the job id derives from it. */
  idempotencyKey?: string;
  /** The channel of the web instance that waits for this run's answer (lastNode, responseNode, test calls). */
  replyTo?: string;
  /** The workflow's `settings.concurrency`, read by the worker that takes the job. */
  concurrency?: number;
  /** The run counts against the workflow's `settings.maxQueued` until it ends. */
  tracked?: true;
  /** The web instance measures the call's stages (option `stageTimes`): the worker's reply says when it took, ran and answered the job. */
  stamps?: true;
  /** A run resumed from `suspend()`: its wait id, state and times (the worker's run gets it as `run.resume`). */
  resume?: RunResume;
  /** A replay of a kept call (history): which, when it first came, who replayed it (the worker's run gets it as `run.replay`). */
  replay?: RunReplay;
  /** When the web instance stored it, epoch milliseconds. */
  storedAt: number;
  /** The call's trace context (W3C `traceparent`, `tracestate`), when the web instance traces: the worker's run continues it. */
  trace?: Record<string, string>;
  /**
   * The body's fingerprint (SHA-256; with the `encryption` option an HMAC-SHA256 under a key derived from the
   * current key, as `<key id>:<mac>`) of a call with an idempotency key: a later call with the key and another body is
   * refused 422 `IDEMPOTENCY_KEY_REUSED` instead of being answered with this run's result.
   */
  fingerprint?: string;
  /** Names this store of the job: a refusal marks it, so a later store under the same job id is not mistaken for it. */
  storeId?: string;
  /**
   * Past this time (epoch ms) the caller may have been refused 503 because Redis had not acknowledged the job yet; a
   * worker that takes the job later checks that it was not (a refused job is not run).
   */
  answerBy?: number;
}

/** What a finished job keeps as its result (`queue.status(jobId).result`), and what a waiting call is answered from. */
export interface WebhookJobResult {
  /** The last node's items; empty when the result is `sealed`. */
  items: PackedItem[];
  hints?: ExecutionHint[];
  /** The run's first `respond()` answer (responseNode), so a repeated call is answered as the first was. */
  response?: PackedResponse;
  /** The job reached Redis only after its caller had been refused 503 (Redis paused): it was not run. */
  refused?: true;
  /** With the `encryption` option: `{ items, hints?, response? }` encrypted, bound to the job's id. */
  sealed?: SealedValue;
}

/**
 * With a keyring every value the queue stores or sends is sealed, and the seal is what proves a worker or web instance
 * made it: a clear one was put there by someone else (a writer of the store, or anyone allowed to publish on a reply
 * channel), so it is refused rather than believed.
 */
function refuseClear(keyring: Keyring | undefined, what: string): void {
  if (keyring !== undefined) {
    const refused = new Error(`The queue encrypts job data (option encryption), so ${what} arrives sealed; this one is clear and is refused as possibly forged.`);
    notRetried.add(refused);
    throw refused;
  }
}

/**
 * Failures another attempt would meet again, so none is made: a clear value refused under a keyring (the next
 * attempt reads the same value), a result that cannot be stored (result-packing.ts).
 */
export const notRetried = new WeakSet<Error>();

/** The job's trigger item, opened when it is sealed (throws, saying why, when this process cannot open it or it is clear under a keyring). */
export function jobItem(data: WebhookJobData, keyring: Keyring | undefined, jobId: string): PackedItem {
  if (data.sealedItem !== undefined) return open<PackedItem>(keyring, data.sealedItem, itemContext(jobId, data));
  refuseClear(keyring, 'a job\'s trigger item');
  return data.item ?? { json: {} };
}

/** A result as it is stored: sealed when the queue encrypts job data. */
export function sealResult(result: WebhookJobResult, keyring: Keyring | undefined, jobId: string): WebhookJobResult {
  if (keyring === undefined) return result;
  return { items: [], sealed: seal(keyring, result, `result:${jobId}`) };
}

/** A stored result, opened when it is sealed (throws when it does not open, or is clear under a keyring). */
export function openResult(result: WebhookJobResult, keyring: Keyring | undefined, jobId: string): WebhookJobResult {
  if (result.sealed === undefined) {
    refuseClear(keyring, 'a run\'s result');
    return result;
  }
  return open<WebhookJobResult>(keyring, result.sealed, `result:${jobId}`);
}

/** A `respond()` answer as JSON: a Buffer body travels as base64. */
export type PackedResponse = Omit<WorkflowResponse, 'body'> & { body?: unknown; bodyBase64?: string };

export function packResponse(response: WorkflowResponse): PackedResponse {
  if (typeof response !== 'object' || response === null || !Buffer.isBuffer(response.body)) return response;
  const { body, ...rest } = response;
  return { ...rest, bodyBase64: (body as Buffer).toString('base64') };
}

export function unpackResponse(packed: PackedResponse): WorkflowResponse {
  if (typeof packed !== 'object' || packed === null || typeof packed.bodyBase64 !== 'string') return packed as WorkflowResponse;
  const { bodyBase64, ...rest } = packed;
  return { ...rest, body: Buffer.from(bodyBase64, 'base64') };
}

/** A `respond()` answer as it crosses pub/sub: sealed, bound to its job, when the queue encrypts job data. */
export function respondMessage(jobId: string, response: PackedResponse, keyring: Keyring | undefined): ReplyMessage {
  if (keyring === undefined) return { jobId, type: 'respond', response };
  return { jobId, type: 'respond', sealed: seal(keyring, response, `respond:${jobId}`) };
}

/** The answer a respond message carries, opened when it is sealed (throws, saying why, when it does not open or is clear under a keyring). */
export function respondedWith(message: Extract<ReplyMessage, { type: 'respond' }>, keyring: Keyring | undefined): PackedResponse {
  if (message.sealed === undefined) {
    refuseClear(keyring, 'a respond() answer');
    return message.response as PackedResponse;
  }
  return open<PackedResponse>(keyring, message.sealed, `respond:${message.jobId}`);
}

/** What a run's failure says: its message, and the library's code and hint when the failure had them. */
export interface RunFailure { message: string; code?: string; hint?: string }

/**
 * A failed run as it crosses pub/sub: sealed, bound to its job, when the queue encrypts job data. The message may
 * quote what the run read (an executor's own error), so none of it travels readable, the code and hint included.
 */
export function failedMessage(jobId: string, failure: RunFailure, keyring: Keyring | undefined): ReplyMessage {
  if (keyring === undefined) return { jobId, type: 'failed', ...failure };
  return { jobId, type: 'failed', sealed: seal(keyring, failure, `failed:${jobId}`) };
}

/** The failure a failed message carries, opened when it is sealed (throws, saying why, when it does not open or is clear under a keyring). */
export function failedWith(message: Extract<ReplyMessage, { type: 'failed' }>, keyring: Keyring | undefined): RunFailure {
  if (message.sealed !== undefined) return open<RunFailure>(keyring, message.sealed, `failed:${message.jobId}`);
  refuseClear(keyring, 'a run\'s failure');
  return { message: message.message ?? 'The run failed.', code: message.code, hint: message.hint };
}

/**
 * Messages on a web instance's reply channel, for one job. With the `encryption` option a `respond` answer travels
 * `sealed`, never as `response`, and a failure `sealed`, never as `message`, `code` and `hint` (pub/sub is readable
 * by anyone who may subscribe); one that is not is refused. Without it, a message is stored and the channel carries
 * only where (store/contract.ts, ReplyMode).
 */
export type ReplyMessage =
  | { jobId: string; type: 'respond'; response?: PackedResponse; sealed?: SealedValue }
  /** `stages`: only for a job that asked for them (`stamps`). */
  | { jobId: string; type: 'completed'; result: WebhookJobResult; stages?: WorkerStages }
  /** The run failed for good (no attempts left); `code` is the library's error code when the failure had one. */
  | { jobId: string; type: 'failed'; message?: string; code?: string; hint?: string; sealed?: SealedValue };
