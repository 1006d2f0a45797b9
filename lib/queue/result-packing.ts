/**
 * What a run's result becomes as its job keeps it: its items packed (binary data inline or in the binary store), and
 * checked to be storable as JSON, so that a result no attempt could store fails its run once, with the reason.
 */
import { WebhookError } from '../core/errors.js';
import type { ExecutionResult } from '../core/types.js';
import { packItems } from './binary/pack.js';
import type { WebhookJobResult } from './job-data.js';
import type { ResolvedWorkerOptions } from './options.js';

/**
 * The result as the job keeps it. A result that waits to be answered must carry its binary data; one that is too
 * large to travel back is the workflow's failure (an invalid result here), not the caller's 413.
 */
export async function packResult(result: ExecutionResult, options: ResolvedWorkerOptions, awaited: boolean): Promise<Awaited<ReturnType<typeof packItems>>> {
  try {
    return await packItems(result.items, { inlineBytes: options.inlineBinaryBytes, store: options.binaryStore }, awaited);
  } catch (error) {
    if ((error as Partial<WebhookError>).code !== 'QUEUE_PAYLOAD_TOO_LARGE') throw error;
    throw new WebhookError('WORKFLOW_INVALID_RESULT', `The workflow's result cannot travel back to the caller: ${(error as Error).message}`, {
      hint: 'Configure the same binaryStore on the queue and its workers, or raise inlineBinaryBytes on both.',
    });
  }
}

/** The failures of results that cannot be stored: another attempt would fail alike, after running the workflow again. */
export const unstorable = new WeakSet<Error>();

/** A result BullMQ cannot store as JSON fails its run once, with the reason, instead of failing every attempt unseen. */
export function storable(outcome: WebhookJobResult): void {
  try {
    JSON.stringify(outcome);
  } catch (error) {
    const failure = new WebhookError('WORKFLOW_INVALID_RESULT', `The workflow's result cannot be stored as JSON: ${(error as Error).message}`, {
      hint: 'Return plain JSON data: no BigInt, no object that refers to itself, nothing nested thousands deep.', cause: error,
    });
    unstorable.add(failure);
    throw failure;
  }
}
