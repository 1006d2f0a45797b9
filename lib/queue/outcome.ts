/**
 * A waiting call's side of a job: the worker's `respond()` answers become the run's, and the job's end becomes the
 * call's outcome, however many calls wait for the same job.
 */
import { ERROR_CODES, WebhookError, type WebhookErrorCode } from '../core/errors.js';
import { relayedFailure } from '../webhooks/run/execute.js';
import type { ExecutionResult, Item, WebhookRun } from '../core/types.js';
import { storedRefs, unpackItems } from './binary/pack.js';
import type { BinaryStore } from './binary/store.js';
import { unpackResponse, type RunFailure, type WebhookJobResult } from './job-data.js';
import type { ReplyWaiters } from './replies.js';
import type { WorkerStages } from './stages.js';

/**
 * The result's items, read once for every call that waits for it now (each is handed the same result): files the
 * worker put in the binary store for the answer are read once, then removed.
 */
const unpacked = new WeakMap<WebhookJobResult, Promise<Item[]>>();

function itemsOf(result: WebhookJobResult, store: BinaryStore | undefined): Promise<Item[]> {
  let items = unpacked.get(result);
  if (items === undefined) {
    items = unpackItems(result.items, store, true);
    items.then(() => { void store?.remove(storedRefs(result.items)).catch(() => undefined); }, () => undefined);
    unpacked.set(result, items);
  }
  return items;
}

/**
 * Turns the job's answers into the run's respond() and outcome; `stop()` when the call no longer waits. `onStages`
 * hears the worker's stages of a job that asked for them (option stageTimes).
 */
export function waitFor(waiters: ReplyWaiters, store: BinaryStore | undefined, run: WebhookRun, jobId: string, lookNow = false,
  onStages?: (reply: WorkerStages & { seen: number }) => void): { outcome: Promise<ExecutionResult>; stop: () => void } {
  let stop!: () => void;
  const outcome = new Promise<ExecutionResult>((resolve, reject) => {
    stop = waiters.wait(jobId, {
      respond: (message) => { run.respond(unpackResponse(message.response)); },
      completed: (result, reply) => {
        if (reply !== undefined) onStages?.(reply);
        itemsOf(result, store).then((items) => { resolve(result.hints === undefined ? { items } : { items, hints: result.hints }); }, reject);
      },
      failed: (message) => { reject(failureOf(message)); },
    }, lookNow);
    // The caller is gone, the deadline passed or the middleware shuts down: stop listening; the job goes on.
    run.signal.addEventListener('abort', () => {
      stop();
      // The reason as it is (the caller went away: BODY_ABORTED), not as a failure of the workflow.
      const reason: unknown = run.signal.reason;
      reject(reason instanceof WebhookError ? relayedFailure(reason) : reason);
    }, { once: true });
  });
  // The caller may give up while the job is still being stored, before anyone awaits the outcome: that rejection
  // must not go unhandled (it would end the process). Whoever awaits the outcome still sees it.
  outcome.catch(() => undefined);
  return { outcome, stop };
}

/** A relayed failure: the library's own codes as they were judged on the worker, anything else as the workflow's failure. */
function failureOf(message: RunFailure): Error {
  const code = message.code;
  if (code === undefined || code === 'WORKFLOW_FAILED' || !Object.hasOwn(ERROR_CODES, code)) return new Error(message.message);
  return relayedFailure(new WebhookError(message.code as WebhookErrorCode, message.message, { hint: message.hint }));
}
