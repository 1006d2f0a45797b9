/**
 * The connections of queue mode: each one a duplicate of the host's node-redis client (or a client made from a URL),
 * opened by us, with an error listener of ours, so a Redis outage is logged and never crashes the process with an
 * unhandled 'error' event.
 */
import type { WebhookLogger } from '../webhooks/logger.js';
import { errorFields } from '../webhooks/logger.js';
import { warnIfNoErrorListener, type RedisClientLike } from '../redis/client.js';

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

/** Where queue mode connects: a node-redis client (it is duplicated, never used itself) or a Redis URL. */
export type QueueConnection = QueueRedisClient | string;

/** A node-redis client made from a URL: `redis` is an optional peer, loaded only when a URL is given. */
async function fromUrl(url: string): Promise<QueueRedisClient> {
  const { createClient } = await import('redis');
  return createClient({ url }) as unknown as QueueRedisClient;
}

/** The base client every connection of ours is duplicated from; a given client's own listeners are its owner's. */
export async function baseClient(connection: QueueConnection, logger: WebhookLogger, who: string): Promise<QueueRedisClient> {
  if (typeof connection === 'string') return fromUrl(connection);
  warnIfNoErrorListener(connection as RedisClientLike, who, (message) => logger.warn({ component: who }, message));
  return connection;
}

/**
 * Opens one connection of ours. Its errors are logged once per outage (node-redis repeats them on every reconnect
 * attempt) and its return is logged too.
 */
export function openConnection(base: QueueRedisClient, logger: WebhookLogger, purpose: string, overrides?: Record<string, unknown>): { client: QueueRedisClient; ready: Promise<void> } {
  const client = base.duplicate(overrides);
  let down = false;
  client.on('error', (error: unknown) => {
    if (down) return;
    down = true;
    logger.warn({ err: errorFields(error), connection: purpose }, `queue mode: the Redis connection for ${purpose} failed; it reconnects on its own`);
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.warn({ connection: purpose }, `queue mode: the Redis connection for ${purpose} is back`);
  });
  const ready = client.connect().then(() => undefined);
  // A rejection here is also reported through 'error'; callers that need the connection await `ready` themselves.
  ready.catch(() => undefined);
  return { client, ready };
}

/** Closes a connection of ours, whatever state it is in. */
export function closeConnection(client: QueueRedisClient): void {
  try {
    client.destroy();
  } catch {
    // Already closed.
  }
}
