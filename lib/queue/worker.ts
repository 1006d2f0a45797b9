/**
 * `createWebhookWorker()`: runs the host's ordinary executor for each job, in this process or another. A failed run
 * is retried with backoff; a run whose worker died is taken up again by another worker (BullMQ's stalled-job
 * recovery); a workflow's `settings.concurrency` holds across all workers through leases in the queue's store.
 */
import { DelayedError, UnrecoverableError, type Job, type Worker } from 'bullmq';
import { toWebhookError, WebhookError } from '../core/errors.js';
import { runTooLong } from '../webhooks/run/call-state.js';
import { checkResult } from '../webhooks/run/execute.js';
import { errorFields } from '../core/logger.js';
import type { ExecutionResult, TriggerItem } from '../core/types.js';
import { storedRefs, unpackItems } from './binary/pack.js';
import { emitter } from './events.js';
import { failedMessage, jobItem, notRetried, packResponse, respondMessage, sealResult, type ReplyMessage, type WebhookJobData, type WebhookJobResult } from './job-data.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WebhookWorkerOptions } from './options.js';
import { warnIfPrefixWrapped } from './prefix.js';
import type { OpeningLink, QueueStoreLink } from './store/contract.js';
import { openLink } from './store/open.js';
import { notConnected, queueStart, type QueueReadyOptions } from './start.js';
import { stallCause, stalledWhy } from './stall-cause.js';
import { checkReadyTimeout } from '../core/start-retries.js';
import { LATE_PAUSE_MS, LateJobs } from './late-jobs.js';
import { stageTime } from './stages.js';
import { QueuedRun } from './worker-run.js';
import { keptFailure, packResult, storable } from './result-packing.js';

export interface WebhookWorker {
  /**
   * Resolves once connected and taking jobs. While the store is unreachable or restarting the worker keeps trying
   * (at most a second apart, told once to the logger) and takes jobs once it answers; with `timeoutMs`, rejects
   * `QUEUE_UNAVAILABLE` past it while the tries go on. A failure waiting cannot mend rejects at once, is logged, and
   * sets the process's exit code to 1, so that a supervisor restarts the worker.
   */
  ready(options?: QueueReadyOptions): Promise<void>;
  /** Runs under way now. */
  readonly running: number;
  /** The key prefix in use: the one given, or on Redis Cluster, when it had no hash tag, that prefix in one (`{bull}`). */
  readonly prefix: string;
  /**
   * Stops taking jobs and lets the runs under way finish; after `timeoutMs` (default 10 000) they are told to stop
   * through `run.signal` and left to another worker, which runs them again.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

interface Context {
  options: ResolvedWorkerOptions;
  /** The store's own parts beside BullMQ's jobs: slots, refusal marks, the reply channel. */
  link: QueueStoreLink;
  emit: ReturnType<typeof emitter<import('./events.js').WebhookWorkerEvent>>;
  controllers: Set<AbortController>;
  /** Whether a job taken after its caller's answer was due may run. */
  late: LateJobs;
}

/**
 * Creates a worker. `Body` is inferred from the executor: a `WebhookExecutor<{ name: string }>` that the middleware
 * takes is taken here too.
 *
 * @example
 * const worker = createWebhookWorker({ connection: redisClient, executor: async (run) => ({ items: run.items }) });
 * process.on('SIGTERM', () => worker.close({ timeoutMs: 30_000 }));
 */
export function createWebhookWorker<Body = any>(options: WebhookWorkerOptions<Body>): WebhookWorker {
  const resolved = resolveWorkerOptions(options);
  if (resolved.store === 'redis') warnIfPrefixWrapped(resolved, 'createWebhookWorker');
  const controllers = new Set<AbortController>();
  let worker: Worker<WebhookJobData, WebhookJobResult> | undefined;
  let opening: OpeningLink | undefined;
  /** The BullMQ worker of the try under way, until it is ready. */
  let making: Worker<WebhookJobData, WebhookJobResult> | undefined;
  let closed = false;
  /** One try: the store's connections and BullMQ's worker, ready to take jobs. What a failed try opened is closed. */
  const connect = async (): Promise<Worker<WebhookJobData, WebhookJobResult>> => {
    const thisTry = openLink(resolved, undefined);
    opening = thisTry;
    let made: Worker<WebhookJobData, WebhookJobResult> | undefined;
    try {
      const link = await thisTry.link;
      resolved.binaryStore?.attach?.(link.binaryHost);
      if (closed) throw new Error('closed');
      made = startWorker(resolved, link, controllers);
      making = made;
      await made.waitUntilReady();
      if (closed) throw new Error('closed');
      worker = made;
      return made;
    } catch (error) {
      making = undefined;
      await made?.close(true).catch(() => undefined);
      thisTry.close();
      await thisTry.link.then((link) => link.close(), () => undefined);
      throw error;
    }
  };
  const start = queueStart(resolved, 'queue worker', connect, () => closed);
  // A worker that cannot start for good ends its process with a failure code, so that a supervisor restarts it; one
  // kept waiting for its store keeps the process alive (the tries' pauses are timers that hold it).
  const started = start.wait(undefined, (cause) => notConnected(resolved, 'The queue worker', cause, undefined));
  started.catch(() => {
    if (!closed && (process.exitCode === undefined || process.exitCode === 0)) process.exitCode = 1;
  });
  return {
    ready: (ready) => {
      const timeoutMs = checkReadyTimeout(ready, 'worker');
      return start.wait(timeoutMs, (cause) => notConnected(resolved, 'The queue worker', cause, timeoutMs)).then(() => undefined);
    },
    prefix: resolved.prefix,
    get running() {
      return controllers.size;
    },
    async close({ timeoutMs = 10_000 } = {}) {
      if (closed) return;
      closed = true;
      // Still connecting (the store away): the tries stop, and closing the connections ends the wait for them. A
      // BullMQ worker the try under way made goes first: on connections closed under it, its loop would spin.
      start.stop(new Error('The queue worker was closed before it connected.'));
      if (worker === undefined) {
        await making?.close(true).catch(() => undefined);
        opening?.close();
      }
      await start.settled();
      if (worker !== undefined) {
        const finished = worker.close();
        const timer = new Promise<'late'>((resolve) => setTimeout(resolve, timeoutMs, 'late').unref());
        if (await Promise.race([finished.then(() => 'done' as const), timer]) === 'late') {
          for (const controller of controllers) controller.abort(new Error('The worker is closing; another worker runs this job again.'));
          await worker.close(true).catch(() => undefined);
        }
      }
      opening?.close();
      await opening?.link.then((link) => link.close(), () => undefined);
    },
  };
}

/** BullMQ's worker on the store's link, with what it tells heard: a stalled run taken up again, an error it goes on after. */
function startWorker(resolved: ResolvedWorkerOptions, link: QueueStoreLink, controllers: Set<AbortController>): Worker<WebhookJobData, WebhookJobResult> {
  const context: Context = { options: resolved, link, emit: emitter(resolved.onEvent), controllers, late: new LateJobs(link) };
  const worker = link.newWorker((job, token) => processJob(context, job, token), {
    concurrency: resolved.concurrency,
    lockDuration: resolved.lockDurationMs,
    stalledInterval: resolved.stalledIntervalMs,
    maxStalledCount: resolved.maxStalledCount,
  });
  // BullMQ's stalled-job check moved a run whose worker stopped renewing its lock back to the queue: without a
  // word here, a crashed worker's runs would start again on this one unexplained.
  worker.on('stalled', (jobId: string) => {
    resolved.logger.warn({ jobId, ...stallCause(resolved, link) }, `queue worker: a run is back in the queue and runs again; ${stalledWhy(resolved, link)}`);
    context.emit({ type: 'recovered', jobId });
  });
  worker.on('error', (error: Error) => {
    context.late.trouble();
    // An outage is told once, with its end, not once per failed try of each of BullMQ's loops.
    if (link.outage?.covers(error) === true) link.outage.failed(error);
    else resolved.logger.warn({ err: errorFields(error) }, 'queue worker: BullMQ reported an error; it goes on');
    context.emit({ type: 'error', error, during: 'worker' });
  });
  return worker;
}

/** Removes the trigger item's files from the binary store (the run has them, or will never need them). */
async function removeItemFiles(options: ResolvedWorkerOptions, data: WebhookJobData, jobId: string): Promise<void> {
  if (options.binaryStore === undefined) return;
  await options.binaryStore.remove(storedRefs([jobItem(data, options.keyring, jobId)]));
}

/** The attempt this is: failures and crashes before it, plus one. */
function attemptOf(job: Job): number {
  return job.attemptsMade + (job.stalledCounter ?? 0) + 1;
}

async function processJob(context: Context, job: Job<WebhookJobData, WebhookJobResult>, token: string | undefined): Promise<WebhookJobResult> {
  const { options, link } = context;
  const data = job.data;
  if (data?.version !== 1) throw new Error(`Job ${String(job.id)} is not a webhook run this worker can read (version ${String(data?.version)}).`);
  const jobId = job.id as string;
  // Asked for by a web instance that measures its calls' stages (option stageTimes): otherwise no clock is read.
  const taken = data.stamps === true ? stageTime() : 0;
  const late = await context.late.verdict(data);
  if (late === 'later') {
    await job.moveToDelayed(Date.now() + LATE_PAUSE_MS, token);
    throw new DelayedError();
  }
  if (late === 'refused') {
    context.emit({ type: 'skipped', reason: 'refused', jobId, callId: data.callId, workflowId: data.workflowId, nodeName: data.nodeName, mode: data.mode });
    options.logger.warn({ jobId, callId: data.callId, workflowId: data.workflowId }, 'queued run not run: the queue\'s store kept it only after its caller had been answered 503');
    await removeItemFiles(options, data, jobId).catch(() => undefined);
    if (data.tracked === true) await link.releaseSlot(data.workflowId, jobId, true).catch(() => undefined);
    // Sealed like any result: under a keyring a clear one is refused as forged, by status() and a waiting call alike.
    return sealResult({ items: [], refused: true }, options.keyring, jobId);
  }
  // A run holds a lease while it goes when its workflow is limited: for concurrency, and so that maxQueued counts
  // only the runs that wait.
  const leased = data.concurrency !== undefined || data.tracked === true;
  const limit = data.concurrency ?? Number.MAX_SAFE_INTEGER;
  if (leased && !await link.acquireSlot(data.workflowId, jobId, limit, options.lockDurationMs)) {
    // Every slot of the workflow is taken: back to the queue for a moment, without using up an attempt.
    await job.moveToDelayed(Date.now() + 50 + Math.floor(Math.random() * 150), token);
    throw new DelayedError();
  }
  const lease = !leased ? undefined : setInterval(() => {
    void link.acquireSlot(data.workflowId, jobId, limit, options.lockDurationMs).catch(() => undefined);
  }, Math.max(50, Math.floor(options.lockDurationMs / 3)));
  const attempt = attemptOf(job);
  const where = { jobId, callId: data.callId, workflowId: data.workflowId, nodeName: data.nodeName, mode: data.mode };
  const controller = new AbortController();
  context.controllers.add(controller);
  let overrun: NodeJS.Timeout | undefined;
  // Past maxRunMs the run is told to stop, and the attempt ends there even if the executor goes on: its slot is
  // free for the next job, and the job is not run again beside a run that may still be going.
  const overran = options.maxRunMs <= 0 ? undefined : new Promise<never>((_resolve, reject) => {
    overrun = setTimeout(() => {
      const error = runTooLong(options.maxRunMs);
      controller.abort(error);
      reject(error);
    }, options.maxRunMs);
  });
  overran?.catch(() => undefined);
  const startedAt = performance.now();
  let ended = false;
  // One job's replies leave in the order they were made (a respond() answer before the outcome): a store that sends
  // them over several connections (PostgreSQL's pool) would otherwise let the outcome overtake the answer.
  let replied: Promise<void> = Promise.resolve();
  const reply = (message: ReplyMessage): void => {
    if (data.replyTo === undefined) return;
    const channel = data.replyTo;
    replied = replied.then(() => {
      if (message.type === 'completed' && message.stages !== undefined) message.stages.published = stageTime();
      return link.publish(channel, JSON.stringify(message));
    }).catch(() => undefined);
  };
  try {
    let run: QueuedRun | undefined;
    let result: ExecutionResult;
    let outcome: WebhookJobResult;
    let judging = false;
    // Everything that can fail for this attempt is judged alike: reading the files, the run, packing its result.
    try {
      // The job carries the trigger item the web instance built: packed as plain items, it is one again unpacked.
      const items = await unpackItems([jobItem(data, options.keyring, jobId)], options.binaryStore) as TriggerItem[];
      run = new QueuedRun({
        data, jobId, attempt, items, signal: controller.signal,
        send: (response) => { reply(respondMessage(jobId, packResponse(response), options.keyring)); },
        report: (error) => { options.logger.warn({ ...where, err: errorFields(error) }, error.message); },
        progress: (value) => job.updateProgress(value),
        waiting: options.waiting?.settings, baseUrl: options.waiting?.baseUrl ?? '',
      });
      context.emit({ type: 'started', ...where, attempt });
      const execute = (): Promise<ExecutionResult> => Promise.resolve().then(() => options.executor(run as QueuedRun));
      const execution = options.telemetry === undefined ? execute() : options.telemetry.process({ ...where, queue: options.name, attempt, trace: data.trace }, execute);
      run.started(execution);
      const output = await (overran === undefined ? execution : Promise.race([execution, overran]));
      judging = true;
      result = checkResult(output);
      const packed = await packResult(result, options, data.replyTo !== undefined);
      outcome = { items: packed.items };
      if (result.hints !== undefined) outcome.hints = result.hints;
      if (run.response !== undefined) outcome.response = packResponse(run.response);
      storable(outcome, options.store === 'redis' || options.keyring !== undefined);
      outcome = sealResult(outcome, options.keyring, jobId);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      // A result that cannot be stored, an item refused as forged, or a run that overran would fail the same way again
      // (or run beside itself).
      const unrecoverable = notRetried.has(failure) || (failure instanceof WebhookError && failure.code === 'WORKFLOW_TIMEOUT');
      const final = unrecoverable || attempt - (job.stalledCounter ?? 0) >= (job.opts.attempts ?? 1);
      context.emit({ type: 'failed', ...where, attempt, final, error: failure });
      options.logger.error({ ...where, attempt, final, err: errorFields(failure) }, final ? 'queued run failed; no attempts left, the job is kept as failed' : 'queued run failed; it will be retried');
      if (final) {
        ended = true;
        // Only the library's own judgement of a result travels as a code (as in process, whatever the executor
        // throws is the workflow's failure, WORKFLOW_FAILED).
        const judged = judging && failure instanceof WebhookError;
        reply(failedMessage(jobId, { message: failure.message, ...(judged ? { code: failure.code, hint: failure.hint } : {}) }, options.keyring));
      } else {
        context.emit({ type: 'retried', ...where, attempt: attempt + 1 });
      }
      const kept = keptFailure(failure, options.store);
      throw unrecoverable ? new UnrecoverableError(kept.message) : kept;
    }
    if (taken === 0) reply({ jobId, type: 'completed', result: outcome });
    else reply({ jobId, type: 'completed', result: outcome, stages: { processedOn: job.processedOn ?? 0, taken, finished: stageTime(), published: 0 } });
    ended = true;
    await removeItemFiles(options, data, jobId).catch((error: unknown) => {
      context.emit({ type: 'error', error: toWebhookError(error), during: 'removing the job\'s binary data' });
    });
    context.emit({ type: 'completed', ...where, attempt, durationMs: performance.now() - startedAt, items: result.items.length });
    return outcome;
  } finally {
    clearTimeout(overrun);
    clearInterval(lease);
    context.controllers.delete(controller);
    if (leased) {
      await link.releaseSlot(data.workflowId, jobId, ended).catch(() => undefined);
    }
  }
}
