/**
 * workflow-webhooks/redis: one registry shared by every instance of a backend, through Redis (node-redis 5 or
 * later, an optional peer: only hosts that import this entry need it).
 * @module workflow-webhooks/redis
 */
export { RedisWebhookRegistry } from './registry.js';
export type { RedisRegistryEvent, RedisRegistryHealth, RedisWebhookRegistryOptions } from './options.js';
export type { RedisClientLike } from './client.js';
export { RedisCallLog } from './call-log.js';
export type { RedisCallLogClient, RedisCallLogOptions } from './call-log.js';
export type { SharedStoreEvent, SharedStoreHealth } from '../webhooks/registry/shared/events.js';
export type { RegistryReadyOptions } from '../webhooks/registry/shared/store-registry.js';
export { RedisHistoryStore } from './history.js';
export type { RedisHistoryStoreOptions } from './history.js';
