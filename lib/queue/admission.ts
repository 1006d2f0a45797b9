/**
 * The admission of a call that may repeat an earlier one (it has an idempotency key) or counts against maxQueued:
 * one atomic step in the store says whether it is a repeat of a job stored or being stored, a reuse of the key with
 * another body, one run too many, or the call that stores the job.
 */
import { WebhookError } from '../core/errors.js';
import type { ResolvedQueueOptions } from './options.js';
import type { Connected } from './enqueue.js';
import type { Admission } from './store/contract.js';

export interface AdmissionRequest {
  workflowId: string;
  jobId: string;
  maxQueued: number | undefined;
  /** The body's fingerprint when the call has an idempotency key. */
  fingerprint: string | undefined;
  storeId: string;
  /** How long the claim on the key holds unless the job is stored: as long as the call's job may still be stored. */
  claimMs: number;
  /** The caller has been answered (refused) meanwhile: stop asking. */
  abandoned(): boolean;
}

export type Admitted = Exclude<Admission, 'retake' | 'pending' | 'mismatch'>;

const PAUSE_MS = [5, 10, 20, 40, 80];

function reused(): WebhookError {
  return new WebhookError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was used by an earlier call with another body; this call was not run.', {
    hint: 'A retry sends the same body as the call it repeats; a new delivery needs a new idempotency key.',
  });
}

/**
 * Admits the call. A repeat of a call still being stored waits for that job (a sender's concurrent retries become
 * one run, answered alike), and stores the job itself should the first call give up its claim. A job that exists
 * because the store kept it after its caller was refused stands for nobody: it is taken back, and the call admitted
 * anew (a worker that holds it meanwhile makes this call a 503, to be tried again).
 */
export async function admitted(options: ResolvedQueueOptions, connected: Connected, request: AdmissionRequest,
  unavailable: () => WebhookError): Promise<Admitted> {
  const ask = (): Promise<Admission> => connected.link.admit({
    workflowId: request.workflowId, jobId: request.jobId, maxQueued: request.maxQueued, track: request.maxQueued !== undefined,
    staleMs: options.idempotencyWindowMs, fingerprint: request.fingerprint, storeId: request.storeId, claimMs: request.claimMs,
  });
  for (let round = 0; ; round += 1) {
    // Past the caller's deadline its answer is a 503 already: no use asking on.
    if (round > 0 && request.abandoned()) throw unavailable();
    const admission = await ask();
    if (admission === 'mismatch') throw reused();
    if (admission === 'retake') {
      if (await connected.queue.remove(request.jobId) !== 1) throw unavailable();
      continue;
    }
    if (admission !== 'pending') return admission;
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS[Math.min(round, PAUSE_MS.length - 1)]));
  }
}
