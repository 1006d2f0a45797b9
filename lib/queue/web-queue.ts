/**
 * `createWebhookQueue()`: the web side of queue mode. Its `executor` goes where a workflow executor goes; every call
 * becomes one BullMQ job, and the queue's own methods read and steer the jobs (status, failed, retry, remove).
 */
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import { WebhookError } from '../core/errors.js';
import { errorFields } from '../core/logger.js';
import { sealsWith, type AcceptedRun, type HandOffContext, type HandOffExecutor } from '../webhooks/run/hand-off.js';
import type { ExecutionResult, WebhookRun } from '../core/types.js';
import { storedRefs } from './binary/pack.js';
import { handOff, type Connected, type EnqueueContext } from './enqueue.js';
import { emitter } from './events.js';
import { failedWith, jobItem, openResult, respondedWith, type WebhookJobData, type WebhookJobResult } from './job-data.js';
import type { Keyring } from '../core/sealing.js';
import { resolveQueueOptions, type WebhookQueueOptions } from './options.js';
import { ReplyWaiters } from './replies.js';
import { warnIfPrefixWrapped } from './prefix.js';
import type { OpeningLink, QueueStoreLink } from './store/contract.js';
import { openLink } from './store/open.js';
import { answerWithinMs, unreachable } from './refusals.js';
import { notConnected, queueStart, type QueueReadyOptions } from './start.js';
import { checkReadyTimeout } from '../core/start-retries.js';

/** A job as `status()` reports it. */
export interface WebhookJobStatus {
  jobId: string;
  /** BullMQ's state: `waiting`, `delayed`, `active`, `completed`, `failed`, … */
  state: string;
  progress: unknown;
  /** The run's output when completed: its items' json (binary entries keep their metadata), and hints. */
  result?: WebhookJobResult;
  failedReason?: string;
  /** Attempts finished so far: the failed ones, and the one that completed. */
  attemptsMade: number;
  data: WebhookJobData;
  storedAt: number;
  finishedAt?: number;
}

export interface WebhookQueue {
  /** The executor for `createWebhookMiddleware(registry, queue.executor, options)`. */
  readonly executor: HandOffExecutor;
  /** The BullMQ queue itself, for dashboards (bull-board's `BullMQAdapter`) and BullMQ's own tools. */
  readonly bullQueue: Queue<WebhookJobData, WebhookJobResult>;
  /**
   * The key prefix in use on Redis: the one given, or on Redis Cluster, when it had no hash tag, that prefix in one
   * (`{bull}`). On PostgreSQL, where it names nothing, `bull`.
   */
  readonly prefix: string;
  /**
   * Resolves once connected to Redis or PostgreSQL. While the store is unreachable or restarting the queue keeps
   * trying (at most a second apart; calls are answered 503 `QUEUE_UNAVAILABLE` meanwhile) and resolves once it
   * answers; with `timeoutMs`, rejects `QUEUE_UNAVAILABLE` past it, naming the last cause, while the tries go on. A
   * failure waiting cannot mend (a setting, a missing privilege, a certificate refused) rejects at once.
   */
  ready(options?: QueueReadyOptions): Promise<void>;
  status(jobId: string): Promise<WebhookJobStatus | undefined>;
  /** Jobs out of attempts, kept with their error, newest first. */
  failed(options?: { start?: number; end?: number }): Promise<WebhookJobStatus[]>;
  /** Runs a failed job again; false when there is no failed job of that id. */
  retry(jobId: string): Promise<boolean>;
  /** Removes a job that is not running, with its stored binary data; false when it is gone or running. */
  remove(jobId: string): Promise<boolean>;
  /** Closes the queue's connections; calls still waiting for an answer are answered 503. */
  close(): Promise<void>;
}

/**
 * Creates the web side of queue mode.
 *
 * @example
 * const queue = createWebhookQueue({ connection: redisClient });
 * app.use('/hooks', createWebhookMiddleware(registry, queue.executor));
 */
export function createWebhookQueue(options: WebhookQueueOptions): WebhookQueue {
  const resolved = resolveQueueOptions(options);
  if (resolved.store === 'redis') warnIfPrefixWrapped(resolved, 'createWebhookQueue');
  const emit = emitter(resolved.onEvent);
  const instanceId = randomUUID();
  let closed = false;
  let bull: Queue<WebhookJobData, WebhookJobResult> | undefined;
  let waiters: ReplyWaiters | undefined;
  let opening: OpeningLink | undefined;
  const web = { replicas: resolved.replicas, replicaTimeoutMs: resolved.replicaTimeoutMs };

  /** One try: the store's connections, BullMQ's queue, the reply channel heard. What a failed try opened is closed. */
  const connect = async (): Promise<Connected> => {
    const thisTry = openLink(resolved, web);
    opening = thisTry;
    let queue: Queue<WebhookJobData, WebhookJobResult> | undefined;
    let heard: ReplyWaiters | undefined;
    try {
      const link = await thisTry.link;
      queue = link.newQueue();
      queue.on('error', (error: Error) => { resolved.logger.warn({ err: errorFields(error) }, `webhook queue: BullMQ reported an error; calls are refused 503 until ${storeName(link)} answers`); });
      heard = new ReplyWaiters(queue, 1000, {
        result: (result, jobId) => openResult(result, resolved.keyring, jobId),
        response: (message) => respondedWith(message, resolved.keyring),
        failure: (message) => failedWith(message, resolved.keyring),
      }, (error, jobId) => {
        // A reply refused (clear under a keyring, or changed) lands here too: the call then waits for its job's end.
        resolved.logger.error({ jobId, err: errorFields(error) }, 'webhook queue: a reply or job for a waiting call could not be read or was refused; the call is answered from its job, or by its deadline');
      });
      resolved.binaryStore?.attach?.(link.binaryHost);
      const replyChannel = link.replyChannel(instanceId);
      const replies = heard;
      // Back after an outage: replies sent meanwhile are lost, so every waiting call looks at its job.
      await link.listen(replyChannel, (message) => { replies.deliver(message); }, () => { replies.pollAll(); });
      if (closed) throw new Error('closed');
      [bull, waiters] = [queue, heard];
      return { queue, link, waiters: heard, replyChannel };
    } catch (error) {
      heard?.close();
      await queue?.close().catch(() => undefined);
      thisTry.close();
      await thisTry.link.then((link) => link.close(), () => undefined);
      throw error;
    }
  };
  const start = queueStart(resolved, 'webhook queue', connect, () => closed);
  start.begin();
  /** The connections, for a call: waited for no longer than the call may wait, so a call never outlives its answer. */
  const connection = (timeoutMs: number): Promise<Connected> => start.wait(timeoutMs, (cause) => unreachable(resolved, cause));
  const context: EnqueueContext = { options: resolved, get connected() { return connection(answerWithinMs(resolved)); } };

  const accept = (run: WebhookRun, call: HandOffContext): Promise<AcceptedRun> => {
    if (closed) return Promise.reject(new WebhookError('SHUTTING_DOWN', 'The webhook queue is closed.', { headers: { 'retry-after': String(resolved.retryAfterSeconds) } }));
    return handOff(context, run, call).then((accepted) => {
      emit({ type: 'enqueued', jobId: accepted.jobId, callId: run.callId, workflowId: run.workflowId, nodeName: run.nodeName, mode: run.mode, duplicate: accepted.duplicate });
      return accepted;
    }, (error: unknown) => {
      const failure = error as WebhookError;
      // The middleware answers and logs the refusal (with its cause); the queue only reports it as an event.
      emit({ type: 'refused', callId: run.callId, workflowId: run.workflowId, code: failure.code, error: failure });
      throw failure;
    });
  };
  const executor = Object.assign(
    (run: WebhookRun): Promise<ExecutionResult> => accept(run, { responseMode: 'lastNode', settings: undefined, awaitsOutcome: true })
      .then((accepted) => accepted.outcome as Promise<ExecutionResult>),
    { handOff: accept, deduplicates: true },
  );

  if (resolved.keyring !== undefined) sealsWith(executor, resolved.keyring);

  /** What the queue's own methods wait for: the connections, as long as a call would. */
  const connected = (): Promise<Connected> => connection(answerWithinMs(resolved));
  const job = async (jobId: string): Promise<Job<WebhookJobData, WebhookJobResult> | undefined> => (await connected()).queue.getJob(jobId);
  return {
    executor,
    prefix: resolved.prefix,
    get bullQueue() {
      if (bull === undefined) throw new Error('workflow-webhooks/queue: the queue is still connecting; await queue.ready() first.');
      return bull;
    },
    ready: (ready) => {
      const timeoutMs = checkReadyTimeout(ready, 'queue');
      return start.wait(timeoutMs, (cause) => notConnected(resolved, 'The webhook queue', cause, timeoutMs)).then(() => undefined);
    },
    async status(jobId) {
      // The state first: a job read before its state could be read running and then reported completed without its
      // result. Read after, a completed job has its result; one that ended between the reads is asked again.
      const state = await (await connected()).queue.getJobState(jobId);
      const found = await job(jobId);
      if (found === undefined) return undefined;
      const ended = state === 'completed' || state === 'failed' || found.finishedOn === undefined ? state : await found.getState();
      return statusOf(found, ended, resolved.keyring);
    },
    async failed({ start = 0, end = 49 } = {}) {
      const jobs = await (await connected()).queue.getFailed(start, end);
      return jobs.map((found) => statusOf(found, 'failed', resolved.keyring));
    },
    async retry(jobId) {
      const found = await job(jobId);
      if (found === undefined || await found.getState() !== 'failed') return false;
      await found.retry('failed');
      return true;
    },
    async remove(jobId) {
      const found = await job(jobId);
      if (found === undefined || await found.isActive()) return false;
      const result = found.returnvalue === null || found.returnvalue === undefined ? undefined : openResult(found.returnvalue, resolved.keyring, jobId);
      const refs = [...storedRefs([jobItem(found.data, resolved.keyring, jobId)]), ...storedRefs(result?.items ?? [])];
      await found.remove();
      await resolved.binaryStore?.remove(refs);
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      start.stop(new WebhookError('SHUTTING_DOWN', 'The webhook queue is closed.'));
      waiters?.close();
      await bull?.close().catch(() => undefined);
      opening?.close();
      // A try under way ends (it finds the queue closed) and closes what it opened.
      await start.settled();
      await opening?.link.then((link) => link.close(), () => undefined);
    },
  };
}

function storeName(link: QueueStoreLink): string {
  return link.kind === 'redis' ? 'Redis' : 'PostgreSQL';
}

/** A job as status() and failed() report it: its result opened when the queue encrypts job data (its item stays sealed). */
function statusOf(job: Job<WebhookJobData, WebhookJobResult>, state: string, keyring: Keyring | undefined): WebhookJobStatus {
  const status: WebhookJobStatus = {
    jobId: job.id as string, state, progress: job.progress, attemptsMade: job.attemptsMade, data: job.data, storedAt: job.timestamp,
  };
  if (job.returnvalue !== null && job.returnvalue !== undefined) status.result = openResult(job.returnvalue, keyring, job.id as string);
  if (job.failedReason !== undefined && job.failedReason !== '') status.failedReason = job.failedReason;
  if (job.finishedOn !== undefined) status.finishedAt = job.finishedOn;
  return status;
}
