/**
 * The times of a waited-for call's stages through the queue, for measuring where its latency goes (option
 * `stageTimes` of `createWebhookQueue`): the web instance stores the job, a worker takes it, runs it and replies,
 * the web instance reads the reply. Only jobs of a queue with the option carry the request for them; no other call
 * reads a clock for it.
 */

/** What a worker adds to its reply when the job asks for its stages (`WebhookJobData.stamps`). */
export interface WorkerStages {
  /** BullMQ's `processedOn`: when the worker asked Redis to move the job to active (whole milliseconds). */
  processedOn: number;
  /** The worker's processor got the job (BullMQ's answer to that move was read). */
  taken: number;
  /** The run ended and its result was packed. */
  finished: number;
  /** The reply was handed to the publishing connection. */
  published: number;
}

/**
 * One waited-for call's stages, each a time in epoch milliseconds with a fraction (`performance.timeOrigin +
 * performance.now()`, comparable between processes of one machine), except `processedOn` (BullMQ's, whole ms).
 */
export interface QueueCallStages extends WorkerStages {
  callId: string;
  jobId: string;
  /** The web instance began storing the job. */
  storing: number;
  /** Redis acknowledged the job. */
  stored: number;
  /** The web instance read the worker's reply. */
  seen: number;
}

/** The time now, epoch milliseconds with a fraction. */
export function stageTime(): number {
  return performance.timeOrigin + performance.now();
}
