/**
 * workflow-webhooks/queue: queue mode on BullMQ (an optional peer, with node-redis 5 or later for Redis, or `pg` 8 or
 * later for PostgreSQL: only hosts that import this entry need them). Web instances store every call as a job and
 * answer from the worker's result; workers run the host's ordinary executor. A call answered 200 is stored; a run
 * whose worker died runs again elsewhere.
 * @module workflow-webhooks/queue
 */
export { createWebhookQueue, type WebhookJobStatus, type WebhookQueue } from './web-queue.js';
export { createWebhookWorker, type WebhookWorker } from './worker.js';
export type { QueuedWebhookRun } from './worker-run.js';
export type { QueueReadyOptions } from './start.js';
export type { WebhookQueueOptions, WebhookWorkerOptions, WorkerExecutor } from './options.js';
export type { WebhookQueueEvent, WebhookWorkerEvent } from './events.js';
export type { QueueCallStages, WorkerStages } from './stages.js';
export type { WebhookJobData, WebhookJobResult, PackedResponse, ReplyMessage } from './job-data.js';
export type { PackedBinary, PackedItem } from './binary/pack.js';
export type { BinarySource, BinaryStore, BinaryStoreHost, PostgresBinaryHost, RedisBinaryHost, StoredBinary } from './binary/store.js';
export { redisBinaryStore, type RedisBinaryStoreOptions } from './binary/redis-store.js';
export { postgresBinaryStore, type PostgresBinaryStoreOptions } from './binary/postgres-store.js';
export { directoryBinaryStore, type DirectoryBinaryStoreOptions } from './binary/directory-store.js';
export type { QueueClientLike, QueueConnection, QueueRedisClient } from './connection.js';
export type { QueuePostgresConfig, QueuePostgresPool, QueueServerOptions, QueueSentinelOptions, QueueTlsOptions } from './connection-forms.js';
export type { QueueCommands } from './redis-route.js';
export type { EnqueuedJob, ProcessedJob, QueueTelemetry, TraceCarrier } from './tracing.js';
