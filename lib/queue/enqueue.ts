/**
 * The web side's hand-off of one call: admit it (a repeat of a call stored or being stored, a reused key, one run
 * too many), pack its item, store it as a BullMQ job within `enqueueTimeoutMs`, and, when the call waits, hear the
 * worker's answers as the run's `respond()` and outcome. A call that cannot be stored in time is refused 503 and its
 * job, should the store (Redis, PostgreSQL) keep it later after all, is taken back or marked so that no worker runs
 * it; an add whose answer was lost is made again until the store answers (see add-job.ts). With replica acknowledgement
 * (option `replicas`) a stored job is confirmed on the replicas before its call is answered (see confirmStored).
 */
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import type { AcceptedRun, HandOffContext } from '../webhooks/run/hand-off.js';
import type { ExecutionResult, WebhookRun } from '../core/types.js';
import type { Confirmation } from '../redis/replica-acks.js';
import { addJob } from './add-job.js';
import { admitted } from './admission.js';
import { packItems, storeBytesOf, type PackedItem } from './binary/pack.js';
import { bodyFingerprint, idempotencyKeyOf, jobIdOf } from './idempotency.js';
import type { WebhookJobData } from './job-data.js';
import type { ResolvedQueueOptions } from './options.js';
import { waitFor } from './outcome.js';
import { answerWithinMs, refusalOf, tooMany, unavailable, unconfirmed, unreachable } from './refusals.js';
import type { ReplyWaiters } from './replies.js';
import { itemContext, seal } from '../core/sealing.js';
import { stageTime, type WorkerStages } from './stages.js';
import type { QueueStoreLink } from './store/contract.js';
import type { TraceCarrier } from './tracing.js';

/** What the hand-off needs of the queue once it is connected. */
export interface Connected {
  queue: Queue;
  /** The store's own parts beside BullMQ's jobs: admission, slots, refusal marks, replicas. */
  link: QueueStoreLink;
  waiters: ReplyWaiters;
  replyChannel: string;
}

export interface EnqueueContext {
  options: ResolvedQueueOptions;
  /** Resolves once connected; each read waits no longer than a call may (rejects QUEUE_UNAVAILABLE), or rejects when closed. */
  readonly connected: Promise<Connected>;
}

class Abandoned extends Error {}

/** Whether the caller was refused while the job was on its way, and what to do the moment that happens. */
interface Fate {
  /** When the caller is refused unless the store acknowledged the job by then (epoch ms, this machine's clock). */
  answerBy: number;
  abandoned: boolean;
  onAbandon: (() => void) | undefined;
  /** Whether the queue's connection was open when the call's store began: a deadline before that found no store. */
  reached: boolean;
  /** The call's deadline in ms: answerWithinMs, lengthened by the files the binary store takes. */
  withinMs: number;
}

/**
 * Stores the call's run, or refuses it; never longer than enqueueTimeoutMs (plus replicaTimeoutMs with replicas, plus a
 * second per MiB of files the binary store takes).
 */
export function handOff(context: EnqueueContext, run: WebhookRun, call: HandOffContext): Promise<AcceptedRun> {
  const { options } = context;
  // Files the binary store takes lengthen the deadline by their size: many large uploads at once are load, not an outage.
  const withinMs = answerWithinMs(options, storeBytesOf(run.items.slice(0, 1), { inlineBytes: options.inlineBinaryBytes, store: options.binaryStore }));
  const fate: Fate = { answerBy: Date.now() + withinMs, abandoned: false, onAbandon: undefined, reached: false, withinMs };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      fate.abandoned = true;
      fate.onAbandon?.();
      reject(fate.reached ? unavailable(options, undefined, withinMs) : unreachable(options, undefined, withinMs));
    }, withinMs);
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
    throw refusalOf(error, options);
  });
}

async function store(context: EnqueueContext, run: WebhookRun, call: HandOffContext, fate: Fate, trace: TraceCarrier | undefined): Promise<AcceptedRun> {
  const { options } = context;
  const isAbandoned = (): boolean => fate.abandoned;
  const connected = await context.connected;
  fate.reached = true;
  const { settings } = call;
  const key = idempotencyKeyOf(run, settings);
  const jobId = jobIdOf(run, key, call.caller);
  const storeId = randomUUID();
  const track = settings?.maxQueued !== undefined;
  const fingerprint = key === undefined ? undefined : bodyFingerprint(run.items[0], options.keyring);
  // The claim on the key holds while the job may still be stored: for enqueueTimeoutMs and the time its files may take.
  const claimMs = options.enqueueTimeoutMs + fate.withinMs - answerWithinMs(options);
  // Only a call that may repeat an earlier one, or a workflow that caps its waiting runs, needs the admission step:
  // the common call is stored in one round trip.
  const admission = key === undefined && !track ? 'ok' : await admitted(options, connected, {
    workflowId: run.workflowId, jobId, maxQueued: settings?.maxQueued, fingerprint, storeId, claimMs, abandoned: isAbandoned,
  }, () => unavailable(options, undefined, fate.withinMs));
  if (admission === 'full') throw tooMany(options, run.workflowId, settings?.maxQueued as number);
  if (admission === 'duplicate') {
    // The first call's job may not be on the replicas yet: a round of ours confirms it (it was written before).
    if (connected.link.confirmReplicas !== undefined) await confirmed(connected.link.confirmReplicas, options);
    // A repeat waits for the first call's job, which may have ended already: it is looked at at once.
    return { jobId, duplicate: true, outcome: call.awaitsOutcome ? waitFor(connected.waiters, options.binaryStore, run, jobId, true).outcome : undefined };
  }
  let refs: string[] = [];
  // Undoes what was stored for a call that is refused: its files, its place among the workflow's waiting runs, and
  // its claim on the idempotency key (a retry then stores the job).
  const cleanUp = (): Promise<void> => Promise.all([
    options.binaryStore?.remove(refs),
    track ? connected.link.releaseSlot(run.workflowId, jobId, true) : undefined,
    key === undefined ? undefined : connected.link.unclaim(jobId, storeId),
  ]).then(() => undefined, () => undefined);
  let adding: Promise<unknown> | undefined;
  let stopWaiting: (() => void) | undefined;
  try {
    const packed = await packItems(run.items.slice(0, 1), { inlineBytes: options.inlineBinaryBytes, store: options.binaryStore });
    refs = packed.refs;
    if (isAbandoned()) throw new Abandoned();
    const data = jobData(run, jobId, call, storedItem(packed.items[0], call.checkedHeader), key, track, options);
    data.answerBy = fate.answerBy;
    data.storeId = storeId;
    if (fingerprint !== undefined) data.fingerprint = fingerprint;
    if (trace !== undefined) data.trace = trace;
    let outcome: Promise<ExecutionResult> | undefined;
    // Measuring the call's stages (option stageTimes): when its job was sent and stored, and the worker's reply.
    const stages = call.awaitsOutcome && options.stageTimes !== undefined ? { storing: stageTime(), stored: 0 } : undefined;
    if (call.awaitsOutcome) {
      data.replyTo = connected.replyChannel;
      if (stages !== undefined) data.stamps = true;
      const heard = stages === undefined ? undefined : (reply: WorkerStages & { seen: number }): void => {
        try {
          options.stageTimes?.({ callId: run.callId, jobId, ...stages, ...reply });
        } catch {
          // Measuring a call never changes it.
        }
      };
      // Listening before the job exists: a fast worker's answer cannot come first.
      const waiting = waitFor(connected.waiters, options.binaryStore, run, jobId, false, heard);
      stopWaiting = waiting.stop;
      outcome = waiting.outcome;
    }
    // With replica acknowledgement the job waits, delayed, until its caller's answer is due: no worker takes it before
    // it is confirmed (and then promoted), and one that takes it at that time checks it was not refused.
    const confirmReplicas = connected.link.confirmReplicas;
    const delayMs = confirmReplicas === undefined ? 0 : Math.max(1, fate.answerBy - Date.now());
    const job = addJob({ queue: connected.queue, run, data, jobId, attempts: settings?.attempts ?? options.attempts, options, delayMs },
      (error) => connected.link.mayHaveStored(error), isAbandoned);
    adding = job;
    // Refused while the job is on its way (a paused Redis holds every write until it resumes, a slow database commits
    // late): the store marks it (on Redis, on the same connection, right behind the job), and a worker that takes a
    // late job does not run a marked one.
    const refuse = (): void => {
      connected.link.markRefused(storeId, options.idempotencyWindowMs);
      if (key !== undefined) void connected.link.unclaim(jobId, storeId);
    };
    fate.onAbandon = refuse;
    // Stored after the caller was refused: taken back, files and all, unless a worker has it already (then it runs).
    job.then((stored) => { if (isAbandoned()) void stored.remove().then(cleanUp, () => undefined); }, cleanUp);
    const stored = await job;
    if (stages !== undefined) stages.stored = stageTime();
    if (isAbandoned()) throw new Abandoned();
    if (confirmReplicas !== undefined) await confirmStored(confirmReplicas, options, stored, isAbandoned, () => {
      refuse();
      void stored.remove().then(cleanUp, () => undefined);
    });
    return { jobId, duplicate: false, outcome };
  } catch (error) {
    stopWaiting?.();
    // Once the job was sent to the store, its own handlers above clean up; before that, nothing else will.
    if (adding === undefined) await cleanUp();
    throw error;
  }
}

/** Throws 503 unless the replicas acknowledged every write answered so far (a Redis failure rejects as it is). */
async function confirmed(confirm: () => Promise<Confirmation>, options: ResolvedQueueOptions): Promise<void> {
  const confirmation = await confirm();
  if (!confirmation.confirmed) throw unconfirmed(options, confirmation);
}

/**
 * Confirms a stored (delayed) job on the replicas, then lets it run at once (promote; should that write be lost,
 * the job runs when its delay ends). Not confirmed, or past the caller's deadline meanwhile: the job is refused
 * (`refuse`: marked, taken back, its idempotency key given up) and the call answered 503.
 */
async function confirmStored(confirm: () => Promise<Confirmation>, options: ResolvedQueueOptions, stored: Job, abandoned: () => boolean,
  refuse: () => void): Promise<void> {
  try {
    await confirmed(confirm, options);
  } catch (error) {
    refuse();
    throw error;
  }
  if (abandoned()) {
    // The deadline's own refusal marked it already; the job is taken back here.
    refuse();
    throw new Abandoned();
  }
  void stored.promote().catch(() => undefined);
}

function jobData(run: WebhookRun, jobId: string, call: HandOffContext, item: PackedItem, key: string | undefined, track: boolean, options: ResolvedQueueOptions): WebhookJobData {
  const data: WebhookJobData = {
    version: 1, callId: run.callId, workflowId: run.workflowId, nodeName: run.nodeName, mode: run.mode, method: run.method,
    outputIndex: run.outputIndex, responseMode: call.responseMode, storedAt: Date.now(),
  };
  if (options.keyring === undefined) data.item = item;
  else data.sealedItem = seal(options.keyring, item, itemContext(jobId, data));
  if (run.workflowName !== undefined) data.workflowName = run.workflowName;
  if (run.resume !== undefined) data.resume = run.resume;
  if (run.replay !== undefined) data.replay = run.replay;
  if (key !== undefined) data.idempotencyKey = key;
  if (call.settings?.concurrency !== undefined) data.concurrency = call.settings.concurrency;
  if (track) data.tracked = true;
  return data;
}

/**
 * The trigger item as a job keeps it: without the header the node's authentication checked. The guard has done its
 * work, and a credential is checked, never kept: not in Redis, not for the job's retention, not on a dashboard.
 */
function storedItem(item: PackedItem | undefined, checkedHeader: string | undefined): PackedItem {
  if (item === undefined) return { json: {} };
  const headers = item.json.headers as Record<string, unknown> | undefined;
  if (checkedHeader === undefined || typeof headers !== 'object' || headers === null || !Object.hasOwn(headers, checkedHeader)) return item;
  const { [checkedHeader]: _checked, ...kept } = headers;
  return { ...item, json: { ...item.json, headers: kept } };
}
