/**
 * The connections of queue mode: each one a duplicate of the host's node-redis client (or of a client made from a
 * URL or BullMQ's options), opened by us, with an error listener of ours, so a Redis outage is logged and never
 * crashes the process with an unhandled 'error' event.
 */
import type { WebhookLogger } from '../core/logger.js';
import { errorFields } from '../core/logger.js';
import { warnIfNoErrorListener, type RedisClientLike } from '../redis/client.js';
import type { RedisTopology } from '../redis/topology.js';
import type { QueuePostgresConfig, QueuePostgresPool, RedisConnectionForm, QueueSentinelOptions, QueueServerOptions, QueueTlsOptions } from './connection-forms.js';

/** The part of a node-redis client (the `redis` package, 5 or later) queue mode uses; BullMQ takes the same client. */
export interface QueueRedisClient {
  duplicate(overrides?: Record<string, unknown>): QueueRedisClient;
  connect(): Promise<unknown>;
  destroy(): unknown;
  on(event: string, listener: (...args: any[]) => void): unknown;
  listenerCount?(event: string): number;
  sendCommand(args: ReadonlyArray<string | Buffer>, options?: Record<string, unknown>): Promise<unknown>;
  subscribe?(channel: string, listener: (message: string) => void): Promise<unknown>;
  publish?(channel: string, message: string): Promise<unknown>;
  readonly isReady?: boolean;
}

/**
 * Where queue mode connects: on Redis a node-redis client, cluster or Sentinel client (it is duplicated, never used itself), a
 * Redis URL, BullMQ's `{ host, port, username, password, db, tls }`, or BullMQ's Sentinel form
 * `{ sentinels: [{ host, port }], name, username, password, db, tls }`; on PostgreSQL a URL, a `pg.Pool` or a pool config.
 */
export type QueueConnection = QueueClientLike | string | QueueServerOptions | QueueSentinelOptions | QueuePostgresPool | QueuePostgresConfig;

/**
 * A node-redis client of any kind as the host hands it over, typed loosely on purpose: `createClient()`,
 * `createCluster()` and `createSentinel()` clients (node-redis 5 and 6) differ in their `sendCommand` and
 * `duplicate` signatures, and each must be accepted as it is. Which kind it is is told at run time.
 */
export interface QueueClientLike {
  duplicate?(...overrides: never[]): unknown;
  connect(): Promise<unknown>;
  destroy(): unknown;
  on(event: never, listener: never): unknown;
  sendCommand(...args: never[]): Promise<unknown>;
}

function socketTls(tls: QueueTlsOptions | undefined): Record<string, unknown> {
  if (tls === undefined) return {};
  return tls === true ? { tls: true } : { tls: true, ...tls };
}

/** node-redis' client options from BullMQ's server options (credentials, database and TLS of one server). */
function nodeOptions(options: QueueServerOptions | QueueSentinelOptions): Record<string, unknown> {
  const socket: Record<string, unknown> = { ...socketTls(options.tls) };
  if ('host' in options && options.host !== undefined) socket.host = options.host;
  if ('port' in options && options.port !== undefined) socket.port = options.port;
  if ('family' in options && options.family !== undefined) socket.family = options.family;
  if (options.connectTimeout !== undefined) socket.connectTimeout = options.connectTimeout;
  const made: Record<string, unknown> = { socket };
  if (options.username !== undefined) made.username = options.username;
  if (options.password !== undefined) made.password = options.password;
  if (options.db !== undefined) made.database = options.db;
  return made;
}

/** A node-redis client made from a URL or options: `redis` is an optional peer, loaded only for these forms. */
async function made(form: Exclude<RedisConnectionForm, { kind: 'client' }>): Promise<QueueRedisClient> {
  const { createClient, createSentinel } = await import('redis');
  if (form.kind === 'url') return createClient({ url: form.url }) as unknown as QueueRedisClient;
  if (form.kind === 'server') return createClient(nodeOptions(form.options)) as unknown as QueueRedisClient;
  const { sentinels, name, sentinelUsername, sentinelPassword } = form.options;
  const sentinelClientOptions: Record<string, unknown> = {};
  if (sentinelUsername !== undefined) sentinelClientOptions.username = sentinelUsername;
  if (sentinelPassword !== undefined) sentinelClientOptions.password = sentinelPassword;
  return createSentinel({
    name, sentinelRootNodes: sentinels.map(({ host, port }) => ({ host, port })), nodeClientOptions: nodeOptions(form.options), sentinelClientOptions,
  } as never) as unknown as QueueRedisClient;
}

/** The base client every connection of ours is duplicated from; a given client's own listeners are its owner's. */
export async function baseClient(form: RedisConnectionForm, logger: WebhookLogger, who: string): Promise<QueueRedisClient> {
  if (form.kind !== 'client') return made(form);
  warnIfNoErrorListener(form.client as unknown as RedisClientLike, who, (message) => logger.warn({ component: who }, message));
  return form.client;
}

/**
 * The command options of the client a connection is duplicated from, with node-redis' per-command timeout off. That
 * timeout (5 s by default in node-redis 6) bounds only a command's wait to be written to the socket (while
 * disconnected), not its reply, and arms an `AbortSignal.timeout()` per command, which costs more CPU than the rest
 * of sending it.
 */
function untimedCommandOptions(base: QueueRedisClient): Record<string, unknown> {
  // A plain and a cluster client keep them as `_commandOptions`, a Sentinel client shows them as `commandOptions`.
  const probe = base as unknown as { _commandOptions?: Record<string, unknown>; commandOptions?: Record<string, unknown> };
  return { ...(probe.commandOptions ?? probe._commandOptions), timeout: 0 };
}

export interface ConnectionSettings {
  /** A plain client's options, or a Sentinel client's own `reserveClient`. */
  overrides?: Record<string, unknown>;
  /** Without node-redis' per-command timeout: for connections with no offline queue, or whose waits are BullMQ's. */
  untimed?: boolean;
  /** A worker's: its losses go to the worker's one account of the outage, not a line per connection. */
  outage?: { failed(error: unknown): void };
}

/**
 * Opens one connection of ours. Its errors are logged once per outage (node-redis repeats them on every reconnect
 * attempt) and its return is logged too. Overrides are a plain client's options, or a Sentinel client's own
 * `reserveClient` (one primary connection of its own, which replica acknowledgement needs); anything else on a
 * cluster or Sentinel client is left out (an override there would replace the host's node options, TLS and password
 * among them). Command options replace only themselves, on every kind of client.
 */
export function openConnection(base: QueueRedisClient, topology: RedisTopology, logger: WebhookLogger, purpose: string,
  { overrides, untimed = false, outage }: ConnectionSettings = {}): { client: QueueRedisClient; ready: Promise<void> } {
  const commandOptions = untimed ? { commandOptions: untimedCommandOptions(base) } : undefined;
  const reserve = topology === 'sentinel' && overrides?.reserveClient === true;
  const own = topology === 'single' ? { ...overrides, ...commandOptions } : reserve ? { reserveClient: true, ...commandOptions } : commandOptions;
  const client = base.duplicate(own);
  let down = false;
  const failed = (error: unknown): void => {
    if (outage !== undefined) {
      outage.failed(error);
      return;
    }
    if (down) return;
    down = true;
    logger.warn({ err: errorFields(error), connection: purpose }, `queue mode: the Redis connection for ${purpose} failed; it reconnects on its own`);
  };
  const back = (): void => {
    if (!down) return;
    down = false;
    logger.warn({ connection: purpose }, `queue mode: the Redis connection for ${purpose} is back`);
  };
  client.on('error', failed);
  client.on('ready', back);
  // A cluster tells of its nodes' connections apart from its own: a node lost, a node back.
  if (topology === 'cluster') {
    client.on('node-error', failed);
    client.on('node-ready', back);
  }
  const ready = client.connect().then(() => undefined);
  // A rejection here is also reported through 'error'; callers that need the connection await `ready` themselves.
  ready.catch(() => undefined);
  return { client, ready };
}

/** Closes a connection of ours, whatever state it is in. */
export function closeConnection(client: QueueRedisClient): void {
  try {
    // A Sentinel client's destroy() is async: a rejection there means closed too.
    void Promise.resolve(client.destroy()).catch(() => undefined);
  } catch {
    // Already closed.
  }
}
