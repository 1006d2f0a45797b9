/**
 * What a run's outcome becomes as its job keeps it: a result's items packed (binary data inline or in the binary
 * store) and checked to be storable (as JSON; on PostgreSQL without a NUL character), so that a result no attempt
 * could store fails its run once, with the reason; a failure's message written so that the store takes it.
 */
import { WebhookError } from '../core/errors.js';
import type { ExecutionResult } from '../core/types.js';
import { packItems } from './binary/pack.js';
import { notRetried, type WebhookJobResult } from './job-data.js';
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


/** A NUL character as JSON writes it: `\u0000` after an even number of backslashes (an odd one would escape the first). */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/;

function unstorableResult(message: string, hint: string, cause?: unknown): WebhookError {
  const failure = new WebhookError('WORKFLOW_INVALID_RESULT', message, { hint, cause });
  notRetried.add(failure);
  return failure;
}

/**
 * A result BullMQ cannot store fails its run once, with the reason, instead of failing every attempt unseen: one that
 * is not JSON, and one holding a NUL character where it is stored readable on PostgreSQL (`keepsNul` false), whose
 * `jsonb` job table refuses it; Redis keeps it, and so does a sealed result.
 */
export function storable(outcome: WebhookJobResult, keepsNul: boolean): void {
  let text: string;
  try {
    text = JSON.stringify(outcome);
  } catch (error) {
    throw unstorableResult(`The workflow's result cannot be stored as JSON: ${(error as Error).message}`,
      'Return plain JSON data: no BigInt, no object that refers to itself, nothing nested thousands deep.', error);
  }
  if (!keepsNul && ESCAPED_NUL.test(text)) {
    throw unstorableResult('The workflow\'s result holds a NUL character (U+0000), which the queue\'s PostgreSQL cannot store (jsonb keeps none).',
      'Return data without NUL characters: binary content as a binary property, or encoded (base64).');
  }
}

/**
 * The failure as its job keeps it: BullMQ writes the message into PostgreSQL's text and jsonb columns, which keep no NUL
 * character, so there each one is written as the text `\u0000`; unchanged on Redis. Unwritten, the job could not be
 * marked failed and would run again and again.
 */
export function keptFailure(failure: Error, store: 'redis' | 'postgres'): Error {
  if (store === 'redis' || !failure.message.includes('\u0000')) return failure;
  const kept = new Error(failure.message.replaceAll('\u0000', '\\u0000'));
  kept.name = failure.name;
  return kept;
}
