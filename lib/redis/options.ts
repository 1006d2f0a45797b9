/**
 * Options of the Redis registry, checked and defaulted once, in the constructor; nothing deeper reads raw options.
 * The client, prefix and deadline are checked here for every Redis store alike.
 */
import { safeLogger, type WebhookLogger } from '../core/logger.js';
import { loggedEvents, stderrEvents, type SharedStoreEvent, type SharedStoreHealth } from '../webhooks/registry/shared/events.js';
import type { RedisClientLike } from './client.js';
import { slotPrefix, topologyOf, type RedisTopology } from './topology.js';
import { checkMaxWaiting } from '../webhooks/registry/waits.js';

/**
 * What the registry reports about its link to Redis and the state it mirrors: the events every shared store tells,
 * and a warning of its own.
 */
export type RedisRegistryEvent =
  | SharedStoreEvent
  /**
   * A setup that will fail later, said once at `ready()`: `missingErrorListener` when the client it was given has no
   * 'error' listener (node-redis then crashes the process with an unhandled 'error' event the first time Redis drops);
   * `tooFewReplicas` when the primary has fewer replicas connected than option `replicas` asks for (every change
   * would be refused until more connect).
   */
  | { type: 'warning'; code: 'missingErrorListener' | 'tooFewReplicas'; message: string };

/** `health()`: as every shared store's registry reports it. */
export type RedisRegistryHealth = SharedStoreHealth;

export interface RedisWebhookRegistryOptions {
  /**
   * A connected node-redis client (5 or later): `createClient()`, `createCluster()` or `createSentinel()`. The
   * registry opens its own connections with `duplicate()`; node-redis 5's Sentinel client has no `duplicate()`, so
   * the registry shares it and reads the change log every 50 ms instead of waiting on it.
   */
  client: RedisClientLike;
  /**
   * Every key starts with it. Default `workflow-webhooks:`. On a Redis Cluster all the registry's keys must share one
   * hash slot: a prefix with a hash tag (`{wwh}:`) is used as given, one without is wrapped in one
   * (`workflow-webhooks:` becomes `{workflow-webhooks:}`).
   */
  prefix?: string;
  /** Longest wait for any Redis command before it counts as unavailable. Default 2000 ms. */
  commandTimeoutMs?: number;
  /**
   * Once cut off from Redis for longer than this, calls are answered 503 `REGISTRY_UNAVAILABLE` instead of from a
   * table that may be out of date. Default: none, calls are served from memory however long Redis is away.
   */
  staleAfterMs?: number;
  /** Entries the change log keeps; an instance cut off for longer reloads everything. Default 10 000. */
  changeLogLength?: number;
  /**
   * Hears every RedisRegistryEvent. Default: disconnections, returns, resets, warnings and errors go to `logger`.
   */
  onEvent?: (event: RedisRegistryEvent) => void;
  /** Where the default `onEvent` writes (pino, console, the middleware's logger). Default: stderr. */
  logger?: WebhookLogger;
  /** At most this many runs waiting for a call (waiting webhooks) across all instances; one more is refused `TOO_MANY_WAITING`. Default 100 000. */
  maxWaiting?: number;
  /**
   * How many Redis replicas must hold a change before it counts as made (Redis `WAIT`): activations,
   * deactivations, stored waits and claimed waits (a resumed run). With 0 (the default) a change the primary
   * answered is made, and a failover before its replicas caught up can lose it. With 1 or more, a change that fewer
   * replicas acknowledge within `replicaTimeoutMs` is refused `REGISTRY_UNAVAILABLE`: an activation, deactivation or
   * stored wait stays applied on the primary (and served) but may be lost in a failover, so repeat it once the
   * replicas are back; a claimed wait is given back, so the call can be retried. A whole number, at least 0.
   */
  replicas?: number;
  /** With `replicas`: how long a change waits for the replicas' acknowledgement. A whole number of ms, at least 1. Default 1000. */
  replicaTimeoutMs?: number;
}

export interface ResolvedRedisOptions extends RedisStoreConnection {
  staleAfterMs: number;
  changeLogLength: number;
  maxWaiting: number;
  /** Replica acknowledgement of each change; `replicas` 0: none. */
  replicas: number;
  replicaTimeoutMs: number;
  onEvent: (event: RedisRegistryEvent) => void;
}

function fail(name: string, rule: string): never {
  throw new TypeError(`workflow-webhooks/redis: option ${name} ${rule}.`);
}

function whole(name: string, value: unknown, fallback: number, least: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) fail(name, `must be a whole number of at least ${least}; got ${String(value)}`);
  return value;
}

function positive(name: string, value: unknown, fallback: number, failWith: OptionFail = fail): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) failWith(name, 'must be a positive number');
  return value;
}

/** Says that a Redis part's option is wrong; its message names the part. */
export type OptionFail = (name: string, rule: string) => never;

export interface RedisStoreConnection {
  client: RedisClientLike;
  /** The kind of client: on a cluster the prefix carries a hash tag, and commands are routed by key. */
  topology: RedisTopology;
  /** The prefix every key really starts with (the given one, wrapped in a hash tag on a cluster when it has none). */
  prefix: string;
  commandTimeoutMs: number;
}

/**
 * The client, key prefix and command deadline every Redis store takes, checked alike: a node-redis client that can
 * open a connection of the store's own (`duplicate()`; node-redis 5's Sentinel client is shared instead).
 */
export function checkRedisStore(options: { client?: RedisClientLike; prefix?: unknown; commandTimeoutMs?: unknown }, failWith: OptionFail): RedisStoreConnection {
  const { client } = options;
  if (typeof client?.sendCommand !== 'function' || (typeof client.duplicate !== 'function' && topologyOf(client) !== 'sentinel')) {
    failWith('client', 'must be a node-redis client (createClient(), createCluster() or createSentinel() from the redis package, version 5 or later)');
  }
  const prefix = options.prefix ?? 'workflow-webhooks:';
  if (typeof prefix !== 'string') failWith('prefix', 'must be a string');
  const topology = topologyOf(client);
  return { client, topology, prefix: slotPrefix(prefix, topology, 'workflow-webhooks'), commandTimeoutMs: positive('commandTimeoutMs', options.commandTimeoutMs, 2000, failWith) };
}

const VOICE = { component: 'workflow-webhooks/redis', store: 'Redis' };

export function resolveRedisOptions(options: RedisWebhookRegistryOptions): ResolvedRedisOptions {
  if (typeof options !== 'object' || options === null) fail('object', 'is required: new RedisWebhookRegistry({ client })');
  const connection = checkRedisStore(options, fail);
  const changeLogLength = positive('changeLogLength', options.changeLogLength, 10_000);
  if (!Number.isInteger(changeLogLength) || changeLogLength < 100) fail('changeLogLength', 'must be an integer of at least 100');
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') fail('onEvent', 'must be a function');
  if (options.logger !== undefined && (typeof options.logger?.warn !== 'function' || typeof options.logger.error !== 'function')) {
    fail('logger', 'must have warn(fields, message) and error(fields, message)');
  }
  const listener = options.onEvent ?? (options.logger === undefined ? stderrEvents(VOICE) : loggedEvents(safeLogger(options.logger), VOICE));
  return {
    ...connection,
    staleAfterMs: positive('staleAfterMs', options.staleAfterMs, Number.POSITIVE_INFINITY),
    changeLogLength,
    maxWaiting: checkMaxWaiting(options.maxWaiting),
    replicas: whole('replicas', options.replicas, 0, 0),
    replicaTimeoutMs: whole('replicaTimeoutMs', options.replicaTimeoutMs, 1000, 1),
    onEvent: (event) => {
      try {
        listener(event);
      } catch {
        // A host's listener must not break the registry.
      }
    },
  };
}
