/**
 * workflow-webhooks/postgres: one registry shared by every instance of a backend, through PostgreSQL (node-postgres
 * `pg` 8 or later, an optional peer: only hosts that import this entry need it).
 * @module workflow-webhooks/postgres
 */
export { PostgresWebhookRegistry } from './registry.js';
export type { PostgresRegistryEvent, PostgresRegistryHealth, PostgresWebhookRegistryOptions } from './options.js';
export type { PostgresClientLike, PostgresPoolLike, QueryResultLike } from './pool.js';
export { migrate, type PostgresMigrateOptions } from './migrate.js';
export { SCHEMA_VERSION } from './schema.js';
export { PostgresCallLog, type PostgresCallLogOptions } from './call-log.js';
export type { SharedStoreEvent, SharedStoreHealth } from '../webhooks/registry/shared/events.js';
export type { RegistryReadyOptions } from '../webhooks/registry/shared/store-registry.js';
export { PostgresHistoryStore, type PostgresHistoryStoreOptions } from './history.js';
