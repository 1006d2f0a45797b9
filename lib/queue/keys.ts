/**
 * Key and channel names of queue mode beside BullMQ's own: `<prefix>:<queue>:wh:…`, so every key of one queue sits
 * under the prefix BullMQ uses for it and a dashboard that lists the queue's keys shows them together.
 */
export interface QueueKeys {
  /** BullMQ's hash of one job (checked for an earlier call with the same idempotency key). */
  job(jobId: string): string;
  /** The runs of a workflow that were stored and have not ended: a sorted set, member job id, score stored-at. */
  unfinished(workflowId: string): string;
  /** The runs of a workflow under way: a sorted set, member job id, score the lease's end (concurrency limit). */
  running(workflowId: string): string;
  /**
   * Marks one store of a job (its `storeId`) whose caller was refused 503 while Redis had not yet acknowledged it:
   * that job must not run, nor stand for a later call with the same idempotency key.
   */
  refused(storeId: string): string;
  /**
   * The claim on an idempotency key while its first call is being stored: a hash (store id, body fingerprint, since),
   * so a concurrent repeat waits for that job instead of storing its own.
   */
  claim(jobId: string): string;
  /**
   * The key each round of replica acknowledgement writes before its WAIT (see lib/redis/replica-acks.ts); it sits in
   * the queue's slot, so on a cluster the WAIT goes to the primary that holds the queue's jobs.
   */
  acks: string;
  /** Binary data of the Redis binary store. */
  binary(id: string): string;
  /** The channel a web instance hears its waiting calls' answers on. */
  replies(instanceId: string): string;
}

export function queueKeys(prefix: string, name: string): QueueKeys {
  const base = `${prefix}:${name}`;
  const own = `${base}:wh`;
  return {
    job: (jobId) => `${base}:${jobId}`,
    unfinished: (workflowId) => `${own}:unfinished:${workflowId}`,
    running: (workflowId) => `${own}:running:${workflowId}`,
    refused: (storeId) => `${own}:refused:${storeId}`,
    claim: (jobId) => `${own}:claim:${jobId}`,
    acks: `${own}:acks`,
    binary: (id) => `${own}:binary:${id}`,
    replies: (instanceId) => `${own}:replies:${instanceId}`,
  };
}
