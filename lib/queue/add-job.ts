/**
 * Adds a call's job to BullMQ's queue, and finds out what became of an add whose answer was lost. An add that failed
 * after its write was sent (the connection ended: a restart, a terminated backend, a failover) may have stored the
 * job all the same; refusing its caller at once would let a job the store kept run for a caller told 503. Such an
 * add is made again under the same job id, which a store keeps once (a second add of an id stores nothing and answers
 * with the id), until the store answers or the caller's deadline refuses the call, which then marks the job refused
 * as every late job is. An add that surely stored nothing is refused at once.
 */
import type { Job, Queue } from 'bullmq';
import type { WebhookRun } from '../core/types.js';
import type { WebhookJobData } from './job-data.js';
import type { ResolvedQueueOptions } from './options.js';

/** The pauses between adds of a job whose first add's outcome is unknown: from 50 ms, doubling, to 500 ms. */
const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 500;

export interface AddRequest {
  queue: Queue;
  run: WebhookRun;
  data: WebhookJobData;
  jobId: string;
  attempts: number;
  options: ResolvedQueueOptions;
  /** > 0: the job waits this long (replica acknowledgement promotes it once confirmed). */
  delayMs: number;
}

function addOnce({ queue, run, data, jobId, attempts, options, delayMs }: AddRequest): Promise<Job> {
  return queue.add(run.workflowId, data, {
    jobId,
    attempts,
    ...(delayMs > 0 ? { delay: delayMs } : {}),
    backoff: { type: 'exponential', delay: options.backoffMs },
    removeOnComplete: { age: Math.ceil(options.idempotencyWindowMs / 1000) },
    removeOnFail: { age: Math.ceil(options.failedRetentionMs / 1000) },
  });
}

/**
 * The stored job; rejects with the store's failure when the add surely stored nothing, or with the last failure once
 * `abandoned` (the caller was refused meanwhile).
 */
export async function addJob(request: AddRequest, mayHaveStored: (error: unknown) => boolean, abandoned: () => boolean): Promise<Job> {
  let unsure = false;
  for (let pauseMs = FIRST_PAUSE_MS; ; pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS)) {
    try {
      return await addOnce(request);
    } catch (error) {
      // Once an add may have stored the job, a later one that fails before reaching the store settles nothing.
      unsure ||= mayHaveStored(error);
      if (!unsure || abandoned()) throw error;
    }
    await new Promise((resolve) => { setTimeout(resolve, pauseMs).unref(); });
  }
}
