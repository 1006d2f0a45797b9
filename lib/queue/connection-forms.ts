/**
 * The forms queue mode's `connection` option takes, told apart and checked once at the factory: on Redis a
 * node-redis client (plain, cluster or Sentinel), a Redis URL, BullMQ's server options `{ host, port, … }`, and
 * BullMQ's Sentinel options `{ sentinels, name, … }`; on PostgreSQL a `postgres://` URL, a node-postgres `Pool`, or a
 * pool config that names its `database` or a `connectionString`. Anything else is a TypeError that says what it was
 * given (its kind, never its values: a password may be among them) and what is taken.
 */
import { topologyOf, type RedisTopology } from '../redis/topology.js';
import type { QueueRedisClient } from './connection.js';

/** TLS as BullMQ (ioredis) takes it: `true`, or Node's `tls.connect()` options (`ca`, `cert`, `servername`, …). */
export type QueueTlsOptions = true | Record<string, unknown>;

/** BullMQ's form of one server: made into a node-redis `createClient()`. */
export interface QueueServerOptions {
  host?: string;
  /** Default 6379. */
  port?: number;
  username?: string;
  password?: string;
  /** The database number (SELECT); default 0. */
  db?: number;
  tls?: QueueTlsOptions;
  connectTimeout?: number;
  /** 4 or 6: the IP family to resolve `host` to. */
  family?: number;
  /** Copied from BullMQ's examples; BullMQ needs it null, and node-redis has no such option: ignored. */
  maxRetriesPerRequest?: null;
  /** An ioredis option; node-redis always waits for the server: ignored. */
  enableReadyCheck?: boolean;
}

/** BullMQ's (ioredis') Sentinel form: made into a node-redis `createSentinel()`. */
export interface QueueSentinelOptions {
  /** The sentinels to ask for the primary, at least one. */
  sentinels: Array<{ host: string; port: number }>;
  /** The name the sentinels monitor the primary under. */
  name: string;
  /** Credentials, database and TLS of the primary and replicas. */
  username?: string;
  password?: string;
  db?: number;
  tls?: QueueTlsOptions;
  /** Credentials of the sentinels themselves, when they have their own. */
  sentinelUsername?: string;
  sentinelPassword?: string;
  connectTimeout?: number;
  maxRetriesPerRequest?: null;
  enableReadyCheck?: boolean;
}

/**
 * A node-postgres pool config, as BullMQ's PostgreSQL backend takes it: `connectionString` or `host`, `port`, `user`,
 * `password`, `database`, `ssl`, `max`, …, and BullMQ's own `schema` for its tables (default `bullmq`).
 */
export interface QueuePostgresConfig {
  connectionString?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  [option: string]: unknown;
}

/** The part of a node-postgres `Pool` (8 or later) told apart from a Redis client. */
export interface QueuePostgresPool {
  connect(): Promise<unknown>;
  query(...args: never[]): Promise<unknown>;
  end(): Promise<void>;
  on(event: never, listener: never): unknown;
  readonly totalCount: number;
}

/** A form checked: what `baseClient()` builds the connections from. */
export type ConnectionForm =
  | { kind: 'postgres'; postgres: string | QueuePostgresPool | QueuePostgresConfig; topology: 'single' }
  | { kind: 'client'; client: QueueRedisClient; topology: RedisTopology }
  | { kind: 'url'; url: string; topology: 'single' }
  | { kind: 'server'; options: QueueServerOptions; topology: 'single' }
  | { kind: 'sentinel'; options: QueueSentinelOptions; topology: 'sentinel' };

/** The Redis forms: what the Redis connections are made from. */
export type RedisConnectionForm = Exclude<ConnectionForm, { kind: 'postgres' }>;

const ACCEPTED = 'a node-redis client (createClient(), createCluster() or createSentinel() of the redis package), a Redis URL ' +
  '(redis:// or rediss://), { host, port, username, password, db, tls }, { sentinels: [{ host, port }], name, username, password, db, tls }, ' +
  'a PostgreSQL URL (postgres:// or postgresql://), a node-postgres Pool, or a pool config { connectionString } or { host, port, user, password, database }';

const SERVER_KEYS = new Set(['host', 'port', 'username', 'password', 'db', 'tls', 'connectTimeout', 'family', 'maxRetriesPerRequest', 'enableReadyCheck']);
const SENTINEL_KEYS = new Set([...SERVER_KEYS, 'sentinels', 'name', 'sentinelUsername', 'sentinelPassword'].filter((key) => key !== 'host' && key !== 'port' && key !== 'family'));

/** What a value is, for an error message: its type or class, and an object's keys; never a value. */
function described(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return 'a string that is not a redis://, rediss://, postgres:// or postgresql:// URL';
  if (typeof value !== 'object') return `a ${typeof value}`.replace(/^a (?=[aeiou])/, 'an ');
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  const className = proto === null || proto === Object.prototype ? undefined : proto.constructor?.name;
  if (typeof (value as { defineCommand?: unknown }).defineCommand === 'function') {
    return `an ioredis client (${className ?? 'object'}); queue mode connects through node-redis, not ioredis`;
  }
  if (className !== undefined) return `an instance of ${className}`;
  const keys = Object.keys(value);
  return keys.length === 0 ? 'an empty object' : `an object with ${keys.join(', ')}`;
}

function refuse(factory: string, value: unknown, why?: string): never {
  throw new TypeError(`workflow-webhooks/queue: option connection of ${factory} got ${described(value)}${why === undefined ? '' : ` (${why})`}; it takes ${ACCEPTED}.`);
}

function isNodeRedis(value: object): boolean {
  const probe = value as Record<string, unknown>;
  return typeof probe.duplicate === 'function' && typeof probe.sendCommand === 'function' && typeof probe.connect === 'function'
    && typeof probe.defineCommand !== 'function';
}

function protocolOf(value: string): string | undefined {
  try {
    return new URL(value).protocol;
  } catch {
    return undefined;
  }
}

function isPostgresPool(value: object): boolean {
  const probe = value as Record<string, unknown>;
  return typeof probe.connect === 'function' && typeof probe.query === 'function' && typeof probe.end === 'function'
    && typeof probe.totalCount === 'number' && typeof probe.sendCommand !== 'function';
}

/** A PostgreSQL pool config names what only node-postgres takes: a connection string, a database or a user. */
function isPostgresConfig(options: Record<string, unknown>): boolean {
  return 'connectionString' in options || 'database' in options || 'user' in options;
}

function postgresConfig(factory: string, value: Record<string, unknown>): ConnectionForm {
  if (value.connectionString !== undefined && (typeof value.connectionString !== 'string' || !/^postgres(ql)?:$/.test(protocolOf(value.connectionString) ?? ''))) {
    refuse(factory, value, 'connectionString must be a postgres:// or postgresql:// URL');
  }
  for (const key of ['host', 'user', 'password', 'database'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') refuse(factory, value, `${key} must be a string`);
  }
  if (value.port !== undefined && !port(value.port)) refuse(factory, value, 'port must be a whole number from 1 to 65535');
  return { kind: 'postgres', postgres: value as QueuePostgresConfig, topology: 'single' };
}

function port(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) > 0 && (value as number) < 65536;
}

function common(options: Record<string, unknown>): string | undefined {
  for (const key of ['username', 'password', 'sentinelUsername', 'sentinelPassword'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'string') return `${key} must be a string`;
  }
  if (options.db !== undefined && !(Number.isInteger(options.db) && (options.db as number) >= 0)) return 'db must be a whole number of at least 0';
  if (options.tls !== undefined && options.tls !== true && (typeof options.tls !== 'object' || options.tls === null)) return 'tls must be true or TLS options';
  if (options.connectTimeout !== undefined && !(Number.isInteger(options.connectTimeout) && (options.connectTimeout as number) > 0)) return 'connectTimeout must be a positive whole number of ms';
  return undefined;
}

/** Checks `connection` and says which form it is; throws a TypeError for anything else. */
export function connectionForm(value: unknown, factory: string): ConnectionForm {
  if (typeof value === 'string') {
    const protocol = protocolOf(value);
    if (protocol === 'postgres:' || protocol === 'postgresql:') return { kind: 'postgres', postgres: value, topology: 'single' };
    if (protocol !== 'redis:' && protocol !== 'rediss:') refuse(factory, value);
    return { kind: 'url', url: value, topology: 'single' };
  }
  if (typeof value !== 'object' || value === null) refuse(factory, value);
  if (isNodeRedis(value)) return { kind: 'client', client: value as QueueRedisClient, topology: topologyOf(value) };
  if (isPostgresPool(value)) return { kind: 'postgres', postgres: value as QueuePostgresPool, topology: 'single' };
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) refuse(factory, value);
  const options = value as Record<string, unknown>;
  if (isPostgresConfig(options)) return postgresConfig(factory, options);
  const sentinel = 'sentinels' in options;
  const allowed = sentinel ? SENTINEL_KEYS : SERVER_KEYS;
  const unknown = Object.keys(options).filter((key) => !allowed.has(key));
  if (unknown.length > 0 || (!sentinel && !('host' in options) && !('port' in options))) refuse(factory, value, unknown.length > 0 ? `${unknown.join(', ')} not taken` : undefined);
  const wrong = common(options);
  if (wrong !== undefined) refuse(factory, value, wrong);
  if (!sentinel) {
    if (options.host !== undefined && (typeof options.host !== 'string' || options.host === '')) refuse(factory, value, 'host must be a host name or address');
    if (options.port !== undefined && !port(options.port)) refuse(factory, value, 'port must be a whole number from 1 to 65535');
    if (options.family !== undefined && options.family !== 4 && options.family !== 6) refuse(factory, value, 'family must be 4 or 6');
    return { kind: 'server', options: options as QueueServerOptions, topology: 'single' };
  }
  const sentinels = options.sentinels;
  if (!Array.isArray(sentinels) || sentinels.length === 0
    || !sentinels.every((node: { host?: unknown; port?: unknown } | null) => typeof node?.host === 'string' && port(node.port))) {
    refuse(factory, value, 'sentinels must list at least one { host, port }');
  }
  if (typeof options.name !== 'string' || options.name === '') refuse(factory, value, 'name must be the name the sentinels monitor the primary under');
  return { kind: 'sentinel', options: options as unknown as QueueSentinelOptions, topology: 'sentinel' };
}
