/**
 * The web side's hand-off of one call: admit it (a repeat of a stored call, or one run too many waiting), pack its
 * item, store it as a BullMQ job within `enqueueTimeoutMs`, and, when the call waits, turn the worker's answers into
 * the run's `respond()` and outcome. A call that cannot be stored in time is refused 503 and its job, should Redis
 * store it later after all, is taken back before a worker runs it.
 */
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { ERROR_CODES, WebhookError, type WebhookErrorCode } from '../webhooks/errors.js';
import { relayedFailure } from '../webhooks/run/execute.js';
import type { AcceptedRun, HandOffContext } from '../webhooks/run/hand-off.js';
import type { ExecutionResult, WebhookRun } from '../webhooks/types.js';
import { packItems, storedRefs, unpackItems, type PackedItem } from './binary/pack.js';
import type { QueueRedisClient } from './connection.js';
import { idempotencyKeyOf, jobIdOf } from './idempotency.js';
import type { ReplyMessage, WebhookJobData } from './job-data.js';
import { unpackResponse } from './job-data.js';
import type { QueueKeys } from './keys.js';
import type { ResolvedQueueOptions } from './options.js';
import type { ReplyWaiters } from './replies.js';
import { admit, releaseSlot, type Admission } from './scripts.js';
import type { TraceCarrier } from './tracing.js';

/** What the hand-off needs of the queue once it is connected. */
export interface Connected {
  queue: Queue;
  client: QueueRedisClient;
  waiters: ReplyWaiters;
  replyChannel: string;
}

export interface EnqueueContext {
  options: ResolvedQueueOptions;
  keys: QueueKeys;
  /** Resolves once connected; rejects when closed. */
  connected: Promise<Connected>;
}

class Abandoned extends Error {}

/** Whether the caller was refused while the job was on its way, and what to do the moment that happens. */
interface Fate {
  /** When the caller is refused unless Redis acknowledged the job by then (epoch ms, this machine's clock). */
  answerBy: number;
  abandoned: boolean;
  onAbandon: (() => void) | undefined;
}

function unavailable(options: ResolvedQueueOptions, cause?: unknown): WebhookError {
  return new WebhookError('QUEUE_UNAVAILABLE', `The run could not be stored: Redis did not acknowledge it within ${options.enqueueTimeoutMs} ms. It will not run.`, {
    hint: 'Try again in a moment; the webhook queue\'s Redis did not answer.',
    headers: { 'retry-after': String(options.retryAfterSeconds) },
    cause,
  });
}

function tooMany(options: ResolvedQueueOptions, workflowId: string, maxQueued: number): WebhookError {
  return new WebhookError('TOO_MANY_RUNS', `Workflow "${workflowId}" already has ${maxQueued} runs waiting (settings.maxQueued); this call was not stored.`, {
    hint: 'Try again later, once the waiting runs have started.',
    headers: { 'retry-after': String(options.retryAfterSeconds) },
  });
}

/** Stores the call's run, or refuses it; never longer than enqueueTimeoutMs. */
export function handOff(context: EnqueueContext, run: WebhookRun, call: HandOffContext): Promise<AcceptedRun> {
  const { options } = context;
  const fate: Fate = { answerBy: Date.now() + options.enqueueTimeoutMs, abandoned: false, onAbandon: undefined };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      fate.abandoned = true;
      fate.onAbandon?.();
      reject(unavailable(options));
    }, options.enqueueTimeoutMs);
  });
  const { telemetry } = options;
  const stored = telemetry === undefined
    ? store(context, run, call, fate, undefined)
    : telemetry.enqueue({ queue: options.name, workflowId: run.workflowId, callId: run.callId }, (trace) => store(context, run, call, fate, trace));
  stored.catch(() => undefined);
  return Promise.race([stored, deadline]).then((accepted) => {
    clearTimeout(timer);
    return accepted;
  }, (error: unknown) => {
    clearTimeout(timer);
    throw error instanceof WebhookError ? error : unavailable(options, error);
  });
}

async function store(context: EnqueueContext, run: WebhookRun, call: HandOffContext, fate: Fate, trace: TraceCarrier | undefined): Promise<AcceptedRun> {
  const { options, keys } = context;
  const isAbandoned = (): boolean => fate.abandoned;
  const connected = await context.connected;
  const { settings } = call;
  const key = idempotencyKeyOf(run, settings);
  const jobId = jobIdOf(run, key);
  const track = settings?.maxQueued !== undefined;
  // Only a call that may repeat an earlier one, or a workflow that caps its waiting runs, needs the admission step:
  // the common call is stored in one round trip.
  const admission = key === undefined && !track ? 'ok' : await admitted(context, connected, run.workflowId, jobId, settings?.maxQueued);
  if (admission === 'full') throw tooMany(options, run.workflowId, settings?.maxQueued as number);
  if (admission === 'duplicate') {
    // A repeat waits for the first call's job, which may have ended already: it is looked at once at once.
    return { jobId, duplicate: true, outcome: call.awaitsOutcome ? waitFor(context, connected, run, jobId, true).outcome : undefined };
  }
  let refs: string[] = [];
  // Undoes what was stored for a call that is refused: its files, and its place among the workflow's waiting runs.
  const cleanUp = (): Promise<void> => Promise.all([
    options.binaryStore?.remove(refs),
    track ? releaseSlot(connected.client, [keys.running(run.workflowId), keys.unfinished(run.workflowId)], jobId, true) : undefined,
  ]).then(() => undefined, () => undefined);
  let adding: Promise<unknown> | undefined;
  let stopWaiting: (() => void) | undefined;
  try {
    const packed = await packItems(run.items.slice(0, 1), { inlineBytes: options.inlineBinaryBytes, store: options.binaryStore });
    refs = packed.refs;
    if (isAbandoned()) throw new Abandoned();
    const data = jobData(run, call, packed.items[0], key, track);
    data.answerBy = fate.answerBy;
    data.storeId = randomUUID();
    if (trace !== undefined) data.trace = trace;
    let outcome: Promise<ExecutionResult> | undefined;
    if (call.awaitsOutcome) {
      data.replyTo = connected.replyChannel;
      // Listening before the job exists: a fast worker's answer cannot come first.
      const waiting = waitFor(context, connected, run, jobId);
      stopWaiting = waiting.stop;
      outcome = waiting.outcome;
    }
    const job = connected.queue.add(run.workflowId, data, {
      jobId,
      attempts: settings?.attempts ?? options.attempts,
      backoff: { type: 'exponential', delay: options.backoffMs },
      removeOnComplete: { age: Math.ceil(options.idempotencyWindowMs / 1000) },
      removeOnFail: { age: Math.ceil(options.failedRetentionMs / 1000) },
    });
    adding = job;
    // Refused while the job is on its way (a paused Redis holds every write until it resumes): a mark sent on the
    // same connection reaches Redis right behind the job, and a worker that takes a late job does not run a marked one.
    fate.onAbandon = () => {
      void connected.client.sendCommand(['SET', keys.refused(data.storeId as string), '1', 'PX', String(options.idempotencyWindowMs)]).catch(() => undefined);
    };
    // Stored after the caller was refused: taken back, files and all, unless a worker has it already (then it runs).
    job.then((stored) => { if (isAbandoned()) void stored.remove().then(cleanUp, () => undefined); }, cleanUp);
    await job;
    if (isAbandoned()) throw new Abandoned();
    return { jobId, duplicate: false, outcome };
  } catch (error) {
    stopWaiting?.();
    // Once the job was sent to Redis, its own handlers above clean up; before that, nothing else will.
    if (adding === undefined) await cleanUp();
    throw error;
  }
}

function jobData(run: WebhookRun, call: HandOffContext, item: PackedItem | undefined, key: string | undefined, track: boolean): WebhookJobData {
  const data: WebhookJobData = {
    version: 1, callId: run.callId, workflowId: run.workflowId, nodeName: run.nodeName, mode: run.mode, method: run.method,
    outputIndex: run.outputIndex, responseMode: call.responseMode, item: item ?? { json: {} }, storedAt: Date.now(),
  };
  if (run.workflowName !== undefined) data.workflowName = run.workflowName;
  if (run.resume !== undefined) data.resume = run.resume;
  if (key !== undefined) data.idempotencyKey = key;
  if (call.settings?.concurrency !== undefined) data.concurrency = call.settings.concurrency;
  if (track) data.tracked = true;
  return data;
}

/**
 * The admission of a call that may repeat an earlier one or counts against maxQueued. A job that exists because
 * Redis stored it after its caller was refused stands for nobody: it is taken back, and the call admitted anew (a
 * worker that holds it meanwhile makes this call a 503, to be tried again).
 */
async function admitted(context: EnqueueContext, connected: Connected, workflowId: string, jobId: string, maxQueued: number | undefined): Promise<Admission> {
  const { keys, options } = context;
  const ask = (): Promise<Admission> => admit(connected.client, [keys.job(jobId), keys.unfinished(workflowId), keys.running(workflowId)],
    { maxQueued, track: maxQueued !== undefined, jobId, staleMs: options.idempotencyWindowMs, refusedPrefix: keys.refused('') });
  const admission = await ask();
  if (admission !== 'retake') return admission;
  if (await connected.queue.remove(jobId) !== 1) throw unavailable(options);
  return ask();
}

/** Turns the job's answers into the run's respond() and outcome. */
function waitFor(context: EnqueueContext, connected: Connected, run: WebhookRun, jobId: string, lookNow = false): { outcome: Promise<ExecutionResult>; stop: () => void } {
  const store = context.options.binaryStore;
  let stop!: () => void;
  const outcome = new Promise<ExecutionResult>((resolve, reject) => {
    stop = connected.waiters.wait(jobId, {
      respond: (message) => { run.respond(unpackResponse(message.response)); },
      completed: (result) => {
        unpackItems(result.items, store, true).then((items) => {
          resolve(result.hints === undefined ? { items } : { items, hints: result.hints });
          void store?.remove(storedRefs(result.items)).catch(() => undefined);
        }, reject);
      },
      failed: (message) => { reject(failureOf(message)); },
    }, lookNow);
    // The caller is gone, the deadline passed or the middleware shuts down: stop listening; the job goes on.
    run.signal.addEventListener('abort', () => {
      stop();
      // The reason as it is (the caller went away: BODY_ABORTED), not as a failure of the workflow.
      const reason: unknown = run.signal.reason;
      reject(reason instanceof WebhookError ? relayedFailure(reason) : reason);
    }, { once: true });
  });
  // The caller may give up while the job is still being stored, before anyone awaits the outcome: that rejection
  // must not go unhandled (it would end the process). Whoever awaits the outcome still sees it.
  outcome.catch(() => undefined);
  return { outcome, stop };
}

/** A relayed failure: the library's own codes as they were judged on the worker, anything else as the workflow's failure. */
function failureOf(message: Extract<ReplyMessage, { type: 'failed' }>): Error {
  const code = message.code;
  if (code === undefined || code === 'WORKFLOW_FAILED' || !Object.hasOwn(ERROR_CODES, code)) return new Error(message.message);
  return relayedFailure(new WebhookError(message.code as WebhookErrorCode, message.message, { hint: message.hint }));
}
