/** Options of the queue (web side) and the worker, checked and defaulted once in their factories; nothing deeper reads raw options. */
import { safeLogger, STDERR_LOGGER, type WebhookLogger } from '../core/logger.js';
import { byteSize, publicUrl, type ByteSize } from '../core/option-checks.js';
import { DEFAULT_LIMITS } from '../core/option-limits.js';
import type { WebhookRegistry } from '../webhooks/registry/contract.js';
import { resolveWaiting, type WaitingMiddlewareOptions, type WaitingSettings } from '../webhooks/waiting/settings.js';
import type { ExecutionResult } from '../core/types.js';
import type { QueuedWebhookRun } from './worker-run.js';
import type { BinaryStore } from './binary/store.js';
import type { QueueConnection } from './connection.js';
import { connectionForm, type ConnectionForm } from './connection-forms.js';
import { slotPrefix, type RedisTopology } from '../redis/topology.js';
import { checkSchemaName } from '../postgres/pool.js';
import type { WebhookQueueEvent, WebhookWorkerEvent } from './events.js';
import type { QueueCallStages } from './stages.js';
import { resolveKeyring, type JobEncryptionOptions, type Keyring } from '../core/sealing.js';
import { resolveQueueTelemetry, type QueueTelemetry } from './tracing.js';

interface Shared {
  /**
   * Where the jobs are kept. Redis: a node-redis client of the `redis` package, 5 or later — `createClient()`,
   * `createCluster()` or `createSentinel()`; it is duplicated, never used itself — or a Redis URL (`redis://`,
   * `rediss://`), or BullMQ's `{ host, port, username, password, db, tls }`, or BullMQ's Sentinel form
   * `{ sentinels: [{ host, port }], name, username, password, db, tls, sentinelPassword }`. PostgreSQL (13 or later,
   * through BullMQ's PostgreSQL backend and the `pg` package): a `postgres://` URL, a node-postgres `Pool` (kept
   * open on close; give it at least 4 connections), or a pool config `{ connectionString }` or `{ host, port, user,
   * password, database }`. Anything else (an ioredis client among them) is a TypeError.
   */
  connection: QueueConnection;
  /**
   * PostgreSQL only: the schema of this library's own tables (claims, slots, replies, files), the same one its
   * PostgreSQL registry uses: lower-case letters, digits and `_`. Default `workflow_webhooks`. BullMQ keeps its jobs
   * in a schema of its own (`bullmq`, or a pool config's `schema`).
   */
  schema?: string;
  /**
   * PostgreSQL only: create or upgrade the tables on start (one instance at a time, under an advisory lock). With
   * false, `migrate()` of `workflow-webhooks/postgres` has been run by a user that may create tables. Default true.
   */
  migrate?: boolean;
  /**
   * PostgreSQL only, as Prisma's `directUrl`: a URL of the same database, direct or through a session-mode pooler, for what needs a
   * session when `connection` goes through a pooler in transaction mode: LISTEN, migrations and BullMQ (its schema on the search_path,
   * its workers woken by LISTEN). Without it, a `connection` whose LISTEN hears no notification is refused on start with a TypeError.
   */
  directUrl?: string;
  /** The BullMQ queue's name: letters, digits, `_`, `.` and `-`. Default `webhooks`. */
  name?: string;
  /**
   * BullMQ's key prefix: letters, digits, `_`, `.` and `-`, with at most one hash tag in braces (`{bull}`). Default
   * `bull`. On Redis Cluster every key of a queue must share one hash slot: a prefix without a hash tag is used
   * wrapped in one (`bull` as `{bull}`), and the queue's and worker's `prefix` say which; the same prefix on the
   * queue and its workers either way.
   */
  prefix?: string;
  /**
   * Files up to this size in all travel inside the job (base64); larger ones go to `binaryStore`. Bytes, or a string
   * such as `'512kb'`. Default 1 MiB.
   */
  inlineBinaryBytes?: ByteSize;
  /**
   * Where larger files wait for the worker: `redisBinaryStore()` (Redis), `postgresBinaryStore()` (PostgreSQL) or
   * `directoryBinaryStore({ directory })` (either).
   */
  binaryStore?: BinaryStore;
  /** The host's logger (pino, console…); default one JSON line per entry on stderr. */
  logger?: WebhookLogger;
  /** Traces the job's way from web instance to worker: the same `webhookTelemetry()` the middleware is given. */
  telemetry?: QueueTelemetry;
  /**
   * Encrypts job data at rest: the trigger item each job stores and the result it keeps, with AES-256-GCM under
   * `keys[currentKeyId]`; every key listed still opens older jobs. The same option on the queue and its workers.
   */
  encryption?: JobEncryptionOptions;
}

export interface WebhookQueueOptions extends Shared {
  /** Longest wait for the store to acknowledge a job, plus a second per MiB of the call's files; past it 503 `QUEUE_UNAVAILABLE`. Default 2000 ms. */
  enqueueTimeoutMs?: number;
  /** Tries per run before it is kept as failed; a workflow's `settings.attempts` overrides it. Default 3. */
  attempts?: number;
  /** First retry delay; each next one doubles. Default 1000 ms. */
  backoffMs?: number;
  /** How long a completed job is kept, so a repeated call (same idempotency key) is answered as the first. Default 24 h. */
  idempotencyWindowMs?: number;
  /** How long a failed job is kept for `failed()` and `retry()`. Default 7 days. */
  failedRetentionMs?: number;
  /** `Retry-After` of 503 and 429 answers, in seconds. Default 5. */
  retryAfterSeconds?: number;
  /**
   * How many Redis replicas must hold a call's job before the call is answered 2xx (Redis `WAIT`). With 0 (the
   * default) a 2xx means the primary stored the job: a failover before its replicas caught up can lose it. With 1 or
   * more, a 2xx means the job is on that many replicas too, so a failover to one of them loses no accepted call; when
   * fewer acknowledge within `replicaTimeoutMs`, the call is answered 503 `QUEUE_UNAVAILABLE` with Retry-After and
   * its job never runs (nor stands for a later call with the same idempotency key). A whole number, at least 0.
   */
  replicas?: number;
  /**
   * With `replicas`: how long a stored job waits for the replicas' acknowledgement before its call is refused 503.
   * A call is then answered within `enqueueTimeoutMs + replicaTimeoutMs`. A whole number of ms, at least 1. Default 1000.
   */
  replicaTimeoutMs?: number;
  onEvent?: (event: WebhookQueueEvent) => void;
  /**
   * For measuring where a waiting call's time goes (lastNode, responseNode): called once per call answered from its
   * worker's reply, with the times of its stages (stored, taken by a worker, run, replied, reply read). Its jobs ask
   * their workers for the times; without this option nothing is timed.
   */
  stageTimes?: (stages: QueueCallStages) => void;
}

/** `Body` comes from the executor given: one typed `WebhookExecutor<{ name: string }>` serves middleware and worker. */
export interface WebhookWorkerOptions<Body = any> extends Shared {
  /** The host's ordinary executor (a `WebhookExecutor`), run once per attempt of each job; its run also has `jobId`, `attempt` and `progress()`. */
  executor: WorkerExecutor<Body>;
  /** Runs this worker takes at once. Default 5. */
  concurrency?: number;
  /** A run still going after this long is told to stop through `run.signal`; 0 for none. Default 10 minutes. */
  maxRunMs?: number;
  /** How long a worker's hold on a job lasts without renewal; a worker dead for longer loses its jobs to others. Default 30 000 ms. */
  lockDurationMs?: number;
  /** How often jobs of dead workers are looked for. Default 30 000 ms. */
  stalledIntervalMs?: number;
  /** How many times a job whose worker died is run again before it is kept as failed. Default 2. */
  maxStalledCount?: number;
  /**
   * Lets runs `suspend()` on this worker: the registry the web instances use (Redis), their `waitingSecret` and
   * `waitingPrefix`, and the public base of their addresses (`publicUrl`, e.g. `https://api.example.com/automation`).
   */
  waiting?: WorkerWaitingOptions;
  onEvent?: (event: WebhookWorkerEvent) => void;
}

export interface WorkerWaitingOptions extends WaitingMiddlewareOptions {
  registry: WebhookRegistry;
  publicUrl: string;
}

function count(name: string, value: number | undefined, fallback: number, least: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= least) || (value !== Infinity && !Number.isSafeInteger(value))) {
    throw new TypeError(`workflow-webhooks/queue: option ${name} must be a whole number of at least ${least}; got ${String(value)}.`);
  }
  return value;
}

const NAME = /^[\w.-]{1,100}$/;
/** A name, with at most one hash tag (`{…}`, not empty) anywhere in it. */
const PREFIX = /^[\w.-]*(\{[\w.-]+\})?[\w.-]*$/;

function shared(options: Shared, factory: string): ResolvedShared {
  if (typeof options !== 'object' || options === null) throw new TypeError(`workflow-webhooks/queue: ${factory} needs an options object.`);
  const connection = connectionForm(options.connection, factory);
  const name = options.name ?? 'webhooks';
  const given = options.prefix ?? 'bull';
  if (!NAME.test(name)) throw new TypeError('workflow-webhooks/queue: option name takes letters, digits, _, . and - only.');
  if (typeof given !== 'string' || given === '' || given.length > 100 || !PREFIX.test(given)) {
    throw new TypeError('workflow-webhooks/queue: option prefix takes letters, digits, _, . and -, with at most one hash tag in braces ({bull}).');
  }
  const postgres = connection.kind === 'postgres';
  if (postgres) refuseRedisOnly(options as Shared & { replicas?: number }, factory);
  else if (options.schema !== undefined || options.migrate !== undefined || options.directUrl !== undefined) {
    throw new TypeError(`workflow-webhooks/queue: options schema, migrate and directUrl of ${factory} are for a PostgreSQL connection; on Redis, prefix keeps queues apart.`);
  }
  if (options.migrate !== undefined && typeof options.migrate !== 'boolean') throw new TypeError('workflow-webhooks/queue: option migrate must be true or false.');
  if (options.directUrl !== undefined && !/^postgres(ql)?:\/\//.test(String(options.directUrl))) throw new TypeError(`workflow-webhooks/queue: option directUrl of ${factory} must be a postgres:// or postgresql:// URL that reaches the database directly.`);
  return {
    connection, topology: connection.topology, name, givenPrefix: given, prefix: slotPrefix(given, connection.topology, 'bull'),
    store: postgres ? 'postgres' : 'redis',
    schema: checkSchemaName(options.schema),
    migrate: options.migrate ?? true,
    directUrl: options.directUrl,
    inlineBinaryBytes: byteSize('inlineBinaryBytes (workflow-webhooks/queue)', options.inlineBinaryBytes, 1024 * 1024, true),
    binaryStore: options.binaryStore,
    logger: safeLogger(options.logger ?? STDERR_LOGGER),
    telemetry: resolveQueueTelemetry(options.telemetry, factory),
    keyring: resolveKeyring(options.encryption),
  };
}

/** What names Redis only, given with a PostgreSQL connection: a TypeError that says what to do instead. */
function refuseRedisOnly(options: Shared & { replicas?: number }, factory: string): void {
  if (options.prefix !== undefined) {
    throw new TypeError(`workflow-webhooks/queue: option prefix of ${factory} names Redis keys; on PostgreSQL, queues are kept apart by name (and BullMQ's schema, a pool config's schema).`);
  }
  if (options.binaryStore?.kind === 'redis') {
    throw new TypeError(`workflow-webhooks/queue: ${factory} has a PostgreSQL connection and a redisBinaryStore(); use postgresBinaryStore() or directoryBinaryStore({ directory }).`);
  }
  if (options.replicas !== undefined && options.replicas !== 0) {
    throw new TypeError(`workflow-webhooks/queue: option replicas of ${factory} is Redis's WAIT. On PostgreSQL a job is on a standby before its call is answered when the server replicates synchronously: set synchronous_standby_names (and synchronous_commit on, remote_write or remote_apply) on the server, where every commit then waits for the standby.`);
  }
}

export interface ResolvedShared {
  /** Where the jobs are kept. */
  store: 'redis' | 'postgres';
  /** PostgreSQL: the schema of the library's tables. */
  schema: string;
  /** PostgreSQL: whether the tables are created or upgraded on start. */
  migrate: boolean;
  directUrl: string | undefined;
  connection: ConnectionForm;
  topology: RedisTopology;
  name: string;
  /** The prefix as given (or its default). */
  givenPrefix: string;
  /** The prefix the keys really start with: on a cluster, with a hash tag. */
  prefix: string;
  telemetry: QueueTelemetry | undefined;
  inlineBinaryBytes: number;
  binaryStore: BinaryStore | undefined;
  logger: WebhookLogger;
  /** From the `encryption` option: job data is sealed with it. */
  keyring: Keyring | undefined;
}

export interface ResolvedQueueOptions extends ResolvedShared {
  enqueueTimeoutMs: number;
  attempts: number;
  backoffMs: number;
  idempotencyWindowMs: number;
  failedRetentionMs: number;
  retryAfterSeconds: number;
  /** Replica acknowledgement of each stored job; `replicas` 0: none. */
  replicas: number;
  replicaTimeoutMs: number;
  onEvent: WebhookQueueOptions['onEvent'];
  stageTimes: WebhookQueueOptions['stageTimes'];
}

export function resolveQueueOptions(options: WebhookQueueOptions): ResolvedQueueOptions {
  return {
    ...shared(options, 'createWebhookQueue'),
    enqueueTimeoutMs: count('enqueueTimeoutMs', options.enqueueTimeoutMs, 2000, 1),
    attempts: count('attempts', options.attempts, 3, 1),
    backoffMs: count('backoffMs', options.backoffMs, 1000, 0),
    idempotencyWindowMs: count('idempotencyWindowMs', options.idempotencyWindowMs, 24 * 3600_000, 1000),
    failedRetentionMs: count('failedRetentionMs', options.failedRetentionMs, 7 * 24 * 3600_000, 1000),
    retryAfterSeconds: count('retryAfterSeconds', options.retryAfterSeconds, 5, 0),
    replicas: finite('replicas', count('replicas', options.replicas, 0, 0)),
    replicaTimeoutMs: finite('replicaTimeoutMs', count('replicaTimeoutMs', options.replicaTimeoutMs, 1000, 1)),
    onEvent: options.onEvent,
    stageTimes: listener('stageTimes', options.stageTimes),
  };
}

function listener<T>(name: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== 'function') throw new TypeError(`workflow-webhooks/queue: option ${name} must be a function.`);
  return value;
}

/** Redis's WAIT takes whole numbers; Infinity (which `count` lets through for limits) has no meaning here. */
function finite(name: string, value: number): number {
  if (value === Infinity) throw new TypeError(`workflow-webhooks/queue: option ${name} must be a finite whole number; got Infinity.`);
  return value;
}

/** An executor as a worker runs it: any `WebhookExecutor` (typed by its body or not), or one that reads the queued run's extras. */
export type WorkerExecutor<Body = any> = (run: QueuedWebhookRun<Body>) => ExecutionResult | Promise<ExecutionResult>;

export interface ResolvedWorkerOptions extends ResolvedShared {
  executor: WorkerExecutor;
  concurrency: number;
  maxRunMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
  waiting: { settings: WaitingSettings; baseUrl: string } | undefined;
  onEvent: WebhookWorkerOptions['onEvent'];
}

function workerWaiting(given: WorkerWaitingOptions | undefined, maxRunMs: number, logger: WebhookLogger): ResolvedWorkerOptions['waiting'] {
  if (given === undefined) return undefined;
  const { registry, publicUrl: url, ...options } = given;
  if (typeof registry?.lookup !== 'function') throw new TypeError('workflow-webhooks/queue: option waiting.registry must be the web instances\' webhook registry.');
  const baseUrl = publicUrl(url);
  if (baseUrl === undefined) throw new TypeError('workflow-webhooks/queue: option waiting.publicUrl must be the public base of the web instances\' addresses.');
  const settings = resolveWaiting(options, registry, { limits: DEFAULT_LIMITS, maxRunMs: maxRunMs === 0 ? Infinity : maxRunMs, logger, onEvent: undefined });
  return { settings, baseUrl };
}

export function resolveWorkerOptions(options: WebhookWorkerOptions): ResolvedWorkerOptions {
  const base = shared(options, 'createWebhookWorker');
  if (typeof options.executor !== 'function') throw new TypeError('workflow-webhooks/queue: createWebhookWorker needs { executor }, the workflow executor function.');
  const maxRunMs = count('maxRunMs', options.maxRunMs, 600_000, 0);
  return {
    ...base,
    executor: options.executor,
    concurrency: count('concurrency', options.concurrency, 5, 1),
    maxRunMs,
    waiting: workerWaiting(options.waiting, maxRunMs, base.logger),
    lockDurationMs: count('lockDurationMs', options.lockDurationMs, 30_000, 100),
    stalledIntervalMs: count('stalledIntervalMs', options.stalledIntervalMs, 30_000, 100),
    maxStalledCount: count('maxStalledCount', options.maxStalledCount, 2, 0),
    onEvent: options.onEvent,
  };
}
