/**
 * Typed events of queue mode: the web side's (`enqueued`, and refusals) and the worker's (`started`, `completed`,
 * `failed`, `retried`, `recovered`), through each one's `onEvent` option. A listener that throws is ignored.
 */
import type { WebhookKind } from '../core/types.js';

interface JobEvent {
  jobId: string;
  callId: string;
  workflowId: string;
  nodeName: string;
  mode: WebhookKind;
}

export type WebhookQueueEvent =
  /** The run was stored (`duplicate`: the call repeats one stored before and was not stored again). */
  | (JobEvent & { type: 'enqueued'; duplicate: boolean })
  /** The run could not be stored and the caller was refused (`QUEUE_UNAVAILABLE`, `TOO_MANY_RUNS`, `QUEUE_PAYLOAD_TOO_LARGE`). */
  | { type: 'refused'; callId: string; workflowId: string; code: string; error: Error };

export type WebhookWorkerEvent =
  /** A worker took the job and runs it; `attempt` counts from 1 (a retry after a failure or a crash is 2, …). */
  | (JobEvent & { type: 'started'; attempt: number })
  | (JobEvent & { type: 'completed'; attempt: number; durationMs: number; items: number })
  /** The attempt failed; `final`: no attempts are left and the job is kept as failed. */
  | (JobEvent & { type: 'failed'; attempt: number; final: boolean; error: Error })
  /** The job will run again (after a failure, with backoff); `attempt` is the attempt that comes next. */
  | (JobEvent & { type: 'retried'; attempt: number })
  /** The job reached Redis only after its caller was refused 503 `QUEUE_UNAVAILABLE` (Redis paused): not run. */
  | (JobEvent & { type: 'skipped'; reason: 'refused' })
  /**
   * A run whose worker stopped renewing its lock (killed, out of memory, its event loop blocked past
   * `lockDurationMs`) was found by this worker's stalled-job check and put back in the queue: it runs again, as
   * `started` with the next `attempt` tells. Emitted by the worker that found it, not the one that ran it.
   */
  | { type: 'recovered'; jobId: string }
  /** Something failed around the runs (a binary store, a Redis call, the connection). */
  | { type: 'error'; error: Error; during: string };

export function emitter<E>(listener: ((event: E) => void) | undefined): (event: E) => void {
  if (listener === undefined) return () => undefined;
  return (event) => {
    try {
      listener(event);
    } catch {
      // Observing the queue never changes it.
    }
  };
}
