/**
 * `createWebhookQueue()`: the web side of queue mode. Its `executor` goes where a workflow executor goes; every call
 * becomes one BullMQ job, and the queue's own methods read and steer the jobs (status, failed, retry, remove).
 */
import { randomUUID } from 'node:crypto';
import { Queue, type Job } from 'bullmq';
import { WebhookError } from '../core/errors.js';
import { errorFields } from '../core/logger.js';
import type { AcceptedRun, HandOffContext, HandOffExecutor } from '../webhooks/run/hand-off.js';
import type { ExecutionResult, WebhookRun } from '../core/types.js';
import { storedRefs } from './binary/pack.js';
import { bullConnection } from './bullmq-node-redis.js';
import { baseClient, closeConnection, openConnection, type QueueRedisClient } from './connection.js';
import { handOff, type Connected, type EnqueueContext } from './enqueue.js';
import { emitter } from './events.js';
import { failedWith, jobItem, openResult, respondedWith, type WebhookJobData, type WebhookJobResult } from './job-data.js';
import type { Keyring } from './sealing.js';
import { queueKeys } from './keys.js';
import { resolveQueueOptions, type WebhookQueueOptions } from './options.js';
import { ReplyWaiters } from './replies.js';
import { oneConnectionOptions, replicaShortfall, ReplicaAcks, sendInOrder } from '../redis/replica-acks.js';
import { routed, shardedReplies, subscribeReplies } from './redis-route.js';
import { warnIfPrefixWrapped } from './prefix.js';

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
  /** The key prefix in use: the one given, or on Redis Cluster, when it had no hash tag, that prefix in one (`{bull}`). */
  readonly prefix: string;
  /** Resolves once connected to Redis; rejects when the connection cannot be opened. */
  ready(): Promise<void>;
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
  const keys = queueKeys(resolved.prefix, resolved.name);
  const routeKey = keys.job('');
  warnIfPrefixWrapped(resolved, 'createWebhookQueue');
  const emit = emitter(resolved.onEvent);
  const instanceId = randomUUID();
  const clients: QueueRedisClient[] = [];
  let closed = false;
  let bull!: Queue<WebhookJobData, WebhookJobResult>;
  let waiters!: ReplyWaiters;

  const connected: Promise<Connected> = (async () => {
    const base = await baseClient(resolved.connection, resolved.logger, 'createWebhookQueue');
    // Commands fail at once while disconnected instead of waiting in node-redis' queue: a call is refused in time.
    // With no offline queue (one server), node-redis' timeout per command, which only bounds a command's wait to be
    // written, has nothing left to bound; a cluster or Sentinel client keeps its offline queue, and so the timeout.
    const command = openConnection(base, resolved.topology, resolved.logger, 'queue commands', {
      overrides: { disableOfflineQueue: true }, untimed: resolved.topology === 'single',
    });
    const subscriber = openConnection(base, resolved.topology, resolved.logger, 'queue replies');
    clients.push(command.client, subscriber.client);
    // Replica acknowledgement blocks its connection while WAIT waits: a connection of its own, so calls' other
    // commands never queue behind it.
    const acking = resolved.replicas === 0 ? undefined
      : openConnection(base, resolved.topology, resolved.logger, 'replica acknowledgement', { overrides: oneConnectionOptions(resolved.topology) });
    if (acking !== undefined) clients.push(acking.client);
    // Closed while the client was being made: these connections are not left open behind it.
    if (closed) for (const client of clients) closeConnection(client);
    const acks = acking === undefined ? undefined : new ReplicaAcks({ replicas: resolved.replicas, timeoutMs: resolved.replicaTimeoutMs }, keys.acks,
      (commands) => sendInOrder(acking.client, resolved.topology, commands, keys.acks));
    const commands = routed(command.client, resolved.topology, routeKey);
    bull = new Queue<WebhookJobData, WebhookJobResult>(resolved.name, { connection: bullConnection(command.client, resolved.topology, routeKey) as never, prefix: resolved.prefix });
    bull.on('error', (error: Error) => { resolved.logger.warn({ err: errorFields(error) }, 'webhook queue: BullMQ reported an error; calls are refused 503 until Redis answers'); });
    waiters = new ReplyWaiters(bull, 1000, {
      result: (result, jobId) => openResult(result, resolved.keyring, jobId),
      response: (message) => respondedWith(message, resolved.keyring),
      failure: (message) => failedWith(message, resolved.keyring),
    }, (error, jobId) => {
      resolved.logger.error({ jobId, err: errorFields(error) }, 'webhook queue: a waiting call could not be answered from its job; its deadline answers it');
    });
    resolved.binaryStore?.attach?.({ client: commands, key: keys.binary });
    await Promise.all([command.ready, subscriber.ready, acking?.ready]);
    // A `replicas` setting the primary cannot meet refuses every call: said once, before the first is refused.
    const shortfall = acks === undefined ? undefined : await replicaShortfall(acks, resolved.replicas, 'calls');
    if (shortfall !== undefined) resolved.logger.warn({ replicas: resolved.replicas }, `createWebhookQueue: ${shortfall}`);
    const replyChannel = keys.replies(instanceId);
    const sharded = await shardedReplies(commands, resolved.topology);
    await subscribeReplies(subscriber.client, sharded, replyChannel, (message) => { waiters.deliver(message); });
    // Back after an outage: replies sent meanwhile are lost, so every waiting call looks at its job. (A cluster's
    // node connections say so with 'node-ready'.)
    for (const event of ['ready', 'node-ready']) subscriber.client.on(event, () => { waiters.pollAll(); });
    if (closed) throw new Error('closed');
    return { queue: bull, client: commands, waiters, replyChannel, acks };
  })();
  connected.catch((error: unknown) => { if (!closed) resolved.logger.error({ err: error }, 'queue mode: could not connect to Redis'); });
  const context: EnqueueContext = { options: resolved, keys, connected };

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

  const job = async (jobId: string): Promise<Job<WebhookJobData, WebhookJobResult> | undefined> => (await connected).queue.getJob(jobId);
  return {
    executor,
    prefix: resolved.prefix,
    get bullQueue() {
      if (bull === undefined) throw new Error('workflow-webhooks/queue: the queue is still connecting; await queue.ready() first.');
      return bull;
    },
    ready: () => connected.then(() => undefined),
    async status(jobId) {
      const found = await job(jobId);
      return found === undefined ? undefined : statusOf(found, await found.getState(), resolved.keyring);
    },
    async failed({ start = 0, end = 49 } = {}) {
      const jobs = await (await connected).queue.getFailed(start, end);
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
      waiters?.close();
      await bull?.close().catch(() => undefined);
      for (const client of clients) closeConnection(client);
    },
  };
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
