/**
 * How a waiting call hears its run's answer: every web instance listens on a channel of its own, a job names the
 * channel of the instance that waits for it, and the worker publishes there (`respond()` at once, the outcome at the
 * end). Pub/sub can drop a message while a connection is down, so each waiting call also looks at its job now and
 * then: a completed or failed job answers it all the same.
 */
import type { Job, Queue } from 'bullmq';
import type { ReplyMessage, WebhookJobResult } from './job-data.js';

export interface WaitHandlers {
  respond(message: Extract<ReplyMessage, { type: 'respond' }>): void;
  completed(result: WebhookJobResult): void;
  failed(message: Extract<ReplyMessage, { type: 'failed' }>): void;
}

interface Waiting {
  handlers: WaitHandlers;
  responded: boolean;
  timer: NodeJS.Timeout;
}

export class ReplyWaiters {
  readonly #waiting = new Map<string, Waiting>();
  readonly #queue: Queue;
  readonly #pollMs: number;

  constructor(queue: Queue, pollMs: number) {
    this.#queue = queue;
    this.#pollMs = pollMs;
  }

  get size(): number {
    return this.#waiting.size;
  }

  /** Waits for the job's answer; `stop()` when the call no longer waits (answered, deadline passed). */
  wait(jobId: string, handlers: WaitHandlers, lookNow = false): () => void {
    const timer = setInterval(() => { void this.#poll(jobId); }, this.#pollMs);
    timer.unref();
    this.#waiting.set(jobId, { handlers, responded: false, timer });
    if (lookNow) void this.#poll(jobId);
    return () => this.#stop(jobId);
  }

  /** A message from the reply channel. */
  deliver(text: string): void {
    let message: ReplyMessage;
    try {
      message = JSON.parse(text) as ReplyMessage;
    } catch {
      return;
    }
    const waiting = this.#waiting.get(message.jobId);
    if (waiting === undefined) return;
    if (message.type === 'respond') {
      if (!waiting.responded) {
        waiting.responded = true;
        waiting.handlers.respond(message);
      }
      return;
    }
    this.#stop(message.jobId);
    if (message.type === 'completed') waiting.handlers.completed(message.result);
    else waiting.handlers.failed(message);
  }

  /** Looks at every waiting job now (the reply channel was down: its messages may be lost). */
  pollAll(): void {
    for (const jobId of this.#waiting.keys()) void this.#poll(jobId);
  }

  #stop(jobId: string): void {
    const waiting = this.#waiting.get(jobId);
    if (waiting === undefined) return;
    clearInterval(waiting.timer);
    this.#waiting.delete(jobId);
  }

  async #poll(jobId: string): Promise<void> {
    let job: Job | undefined;
    let state: string;
    try {
      job = await this.#queue.getJob(jobId);
      state = job === undefined ? 'missing' : await job.getState();
    } catch {
      return; // Redis away: the next look, or the call's deadline, decides.
    }
    const waiting = this.#waiting.get(jobId);
    if (waiting === undefined || job === undefined) return;
    if (state === 'completed') {
      const result = job.returnvalue as WebhookJobResult;
      this.#stop(jobId);
      if (result.response !== undefined && !waiting.responded) waiting.handlers.respond({ jobId, type: 'respond', response: result.response });
      waiting.handlers.completed(result);
    } else if (state === 'failed' && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      this.#stop(jobId);
      waiting.handlers.failed({ jobId, type: 'failed', message: job.failedReason });
    }
  }

  /** Every call still waiting is answered that the queue closed (503 SHUTTING_DOWN); the jobs go on. */
  close(): void {
    for (const [jobId, waiting] of [...this.#waiting]) {
      this.#stop(jobId);
      waiting.handlers.failed({ jobId, type: 'failed', code: 'SHUTTING_DOWN', message: 'The webhook queue closed before the run answered.' });
    }
  }
}
