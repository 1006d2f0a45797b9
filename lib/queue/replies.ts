/**
 * How a waiting call hears its run's answer: every web instance listens on a channel of its own, a job names the
 * channel of the instance that waits for it, and the worker publishes there (`respond()` at once, the outcome at the
 * end). Pub/sub can drop a message while a connection is down, so the calls waiting for a job also look at it now
 * and then: a completed or failed job answers them all the same.
 *
 * Several calls may wait for one job (a sender's concurrent retries share an idempotency key, so a job id): each
 * gets the answer, one look per job serves them all, and the look stops with the last of them. Nothing a look reads
 * from Redis, nor anything a call's handler does with it, may throw out of a timer: that would end the process.
 */
import type { Job, Queue } from 'bullmq';
import type { PackedResponse, ReplyMessage, RunFailure, WebhookJobResult } from './job-data.js';
import { stageTime, type WorkerStages } from './stages.js';

/** A `respond()` answer as a waiting call gets it: opened, when it travelled sealed. */
export interface Responded { jobId: string; type: 'respond'; response: PackedResponse }

/** How stored results, respond and failed messages are read (opened when job data is encrypted); each may throw. */
export interface ReplyOpeners {
  result(result: WebhookJobResult, jobId: string): WebhookJobResult;
  response(message: Extract<ReplyMessage, { type: 'respond' }>): PackedResponse;
  failure(message: Extract<ReplyMessage, { type: 'failed' }>): RunFailure;
}

export interface WaitHandlers {
  respond(message: Responded): void;
  /** `reply`: the worker's stages and when its reply was read, for a job that asked for them (option stageTimes). */
  completed(result: WebhookJobResult, reply?: WorkerStages & { seen: number }): void;
  failed(failure: RunFailure): void;
}

interface Waiter {
  handlers: WaitHandlers;
  responded: boolean;
}

/** The calls waiting for one job, and the one look at it that serves them. */
interface JobWatch {
  waiters: Set<Waiter>;
  timer: NodeJS.Timeout;
  /** A look is under way: another one would only read the same. */
  looking: boolean;
  /** The job was seen in Redis: from now on a missing job was removed, not yet to come. */
  seen: boolean;
}

const REMOVED = 'The run\'s job was removed from the queue before it answered.';

export class ReplyWaiters {
  readonly #watches = new Map<string, JobWatch>();
  readonly #queue: Queue;
  readonly #pollMs: number;
  readonly #open: ReplyOpeners;
  readonly #onError: (error: unknown, jobId: string) => void;

  /**
   * `open` reads a result as it was stored and a respond message as it came (sealed when job data is encrypted);
   * `onError` hears a failure to answer a call from its job (the call is answered by its deadline instead), and must
   * not throw.
   */
  constructor(queue: Queue, pollMs: number, open: ReplyOpeners, onError: (error: unknown, jobId: string) => void) {
    this.#queue = queue;
    this.#pollMs = pollMs;
    this.#open = open;
    this.#onError = onError;
  }

  /** Calls waiting now, over all jobs. */
  get size(): number {
    let size = 0;
    for (const watch of this.#watches.values()) size += watch.waiters.size;
    return size;
  }

  /** Jobs looked at now and then: none once every waiting call was answered. */
  get watchedJobs(): number {
    return this.#watches.size;
  }

  /** Waits for the job's answer; `stop()` when this call no longer waits (answered, deadline passed, caller gone). */
  wait(jobId: string, handlers: WaitHandlers, lookNow = false): () => void {
    let watch = this.#watches.get(jobId);
    if (watch === undefined) {
      const timer = setInterval(() => { this.#look(jobId); }, this.#pollMs);
      timer.unref();
      watch = { waiters: new Set(), timer, looking: false, seen: false };
      this.#watches.set(jobId, watch);
    }
    const waiter: Waiter = { handlers, responded: false };
    watch.waiters.add(waiter);
    if (lookNow) this.#look(jobId);
    return () => { this.#leave(jobId, waiter); };
  }

  /** A message from the reply channel; never throws. */
  deliver(text: string): void {
    let message: ReplyMessage;
    try {
      message = JSON.parse(text) as ReplyMessage;
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null || typeof message.jobId !== 'string') return;
    const watch = this.#watches.get(message.jobId);
    if (watch === undefined) return;
    if (message.type === 'respond') {
      let response: PackedResponse;
      try {
        response = this.#open.response(message);
      } catch (error) {
        this.#report(error, message.jobId);
        return; // the stored result keeps the first answer: a look at the job answers, or the deadline
      }
      for (const waiter of watch.waiters) this.#respond(message.jobId, waiter, { jobId: message.jobId, type: 'respond', response });
      return;
    }
    if (message.type === 'completed') {
      const reply = message.stages === undefined ? undefined : { ...message.stages, seen: stageTime() };
      let result: WebhookJobResult;
      try {
        result = this.#open.result(message.result, message.jobId);
      } catch (error) {
        this.#report(error, message.jobId);
        return; // a look at the job answers, or the deadline
      }
      for (const waiter of this.#end(message.jobId)) this.#call(message.jobId, () => { waiter.handlers.completed(result, reply); });
    } else {
      let failure: RunFailure;
      try {
        failure = this.#open.failure(message);
      } catch (error) {
        this.#report(error, message.jobId);
        return; // a look at the job answers, or the deadline
      }
      for (const waiter of this.#end(message.jobId)) this.#call(message.jobId, () => { waiter.handlers.failed(failure); });
    }
  }

  /** Looks at every waited-for job now (the reply channel was down: its messages may be lost). */
  pollAll(): void {
    for (const jobId of this.#watches.keys()) this.#look(jobId);
  }

  /** Every call still waiting is answered that the queue closed (503 SHUTTING_DOWN); the jobs go on. */
  close(): void {
    for (const jobId of [...this.#watches.keys()]) {
      for (const waiter of this.#end(jobId)) {
        this.#call(jobId, () => {
          waiter.handlers.failed({ code: 'SHUTTING_DOWN', message: 'The webhook queue closed before the run answered.' });
        });
      }
    }
  }

  #leave(jobId: string, waiter: Waiter): void {
    const watch = this.#watches.get(jobId);
    if (watch === undefined || !watch.waiters.delete(waiter) || watch.waiters.size > 0) return;
    clearInterval(watch.timer);
    this.#watches.delete(jobId);
  }

  /**
   * Stops looking at the job; the calls that waited for it, to be answered now. The watch lets go of them: V8 keeps
   * a churned Map's replaced tables, and what their entries hold, alive through young collections for a while.
   */
  #end(jobId: string): Waiter[] {
    const watch = this.#watches.get(jobId);
    if (watch === undefined) return [];
    clearInterval(watch.timer);
    this.#watches.delete(jobId);
    const waiters = [...watch.waiters];
    watch.waiters.clear();
    return waiters;
  }

  #respond(jobId: string, waiter: Waiter, message: Responded): void {
    if (waiter.responded) return;
    waiter.responded = true;
    this.#call(jobId, () => { waiter.handlers.respond(message); });
  }

  #call(jobId: string, handler: () => void): void {
    try {
      handler();
    } catch (error) {
      this.#report(error, jobId);
    }
  }

  #report(error: unknown, jobId: string): void {
    try {
      this.#onError(error, jobId);
    } catch {
      // The host's logger failed too: nothing is left to tell.
    }
  }

  #look(jobId: string): void {
    const watch = this.#watches.get(jobId);
    if (watch === undefined || watch.looking) return;
    watch.looking = true;
    this.#read(jobId, watch).then(() => { watch.looking = false; }, (error: unknown) => {
      watch.looking = false;
      this.#report(error, jobId);
    });
  }

  async #read(jobId: string, watch: JobWatch): Promise<void> {
    let job: Job | undefined;
    let state: string;
    try {
      job = await this.#queue.getJob(jobId);
      state = job === undefined || job === null ? 'missing' : await job.getState();
    } catch {
      return; // Redis away: the next look, or the call's deadline, decides.
    }
    if (this.#watches.get(jobId) !== watch) return; // answered meanwhile
    if (job === undefined || job === null) {
      if (watch.seen) for (const waiter of this.#end(jobId)) this.#call(jobId, () => { waiter.handlers.failed({ code: 'QUEUE_UNAVAILABLE', message: REMOVED }); });
      return;
    }
    watch.seen = true;
    if (state === 'completed') {
      // The job was read before it completed and its state after: its result is read again at the next look.
      const stored = job.returnvalue as WebhookJobResult | null | undefined;
      if (typeof stored !== 'object' || stored === null) {
        setTimeout(() => { this.#look(jobId); }, 20).unref();
        return;
      }
      const result = this.#open.result(stored, jobId);
      for (const waiter of this.#end(jobId)) {
        if (result.response !== undefined) this.#respond(jobId, waiter, { jobId, type: 'respond', response: result.response });
        this.#call(jobId, () => { waiter.handlers.completed(result); });
      }
    } else if (state === 'failed') {
      // A job that is retried waits (delayed) in between: failed is its end, attempts used up or not to be retried.
      const message = typeof job.failedReason === 'string' ? job.failedReason : 'The run failed.';
      for (const waiter of this.#end(jobId)) this.#call(jobId, () => { waiter.handlers.failed({ message }); });
    }
  }
}
