/**
 * The part of a node-redis client (the `redis` package, 5 or later) the registry uses, as a structural type: the
 * package is never imported, so hosts without Redis never load it and no node-redis type reaches our .d.ts.
 * A plain client (`createClient`), a cluster (`createCluster`) and a Sentinel client (`createSentinel`) all fit.
 * Commands go through `sendCommand`, the most stable surface across client versions (its arguments differ by kind:
 * see topology.ts); the scripts answer plain arrays under RESP2 and RESP3 alike.
 */
export interface RedisClientLike {
  /**
   * A new, unconnected client with the same options; the registry opens its own connections this way. node-redis 5's
   * Sentinel client has none: the registry then shares that client (see `borrowed`).
   */
  duplicate?(...overrides: never[]): RedisClientLike;
  connect(): Promise<unknown>;
  destroy(): unknown;
  on(event: 'error' | 'ready', listener: (...args: unknown[]) => void): unknown;
  /** EventEmitter's; used to warn when the host's client has no 'error' listener. */
  listenerCount?(event: string): number;
  sendCommand(...args: never[]): Promise<unknown>;
}

/**
 * The host's client itself, used as if it were a connection of ours, for a client that cannot be duplicated (node-redis
 * 5's Sentinel client): commands go through it, while connecting, closing and its listeners stay the host's.
 */
export function borrowed(source: RedisClientLike): RedisClientLike {
  return {
    connect: () => Promise.resolve(),
    destroy: () => undefined,
    on: () => undefined,
    sendCommand: (...args: never[]) => source.sendCommand(...args),
  };
}

/** Whether connections of our own can be opened from this client (every node-redis client but 5's Sentinel). */
export function canDuplicate(client: RedisClientLike): client is RedisClientLike & Required<Pick<RedisClientLike, 'duplicate'>> {
  return typeof client.duplicate === 'function';
}

/** A Redis error reply (a script error, a wrong type): the server answered, so the connection is fine. */
/** What was thrown, as an Error (a listener's event carries one). */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

export function isReplyError(error: unknown): boolean {
  for (let proto = Object.getPrototypeOf(error) as object | null; proto !== null; proto = Object.getPrototypeOf(proto) as object | null) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === 'ErrorReply') return true;
  }
  return false;
}

/**
 * Closes a client the registry opened, for good. node-redis may finish a reconnect that was under way when
 * destroy() was called and come back "ready"; the ready listener closes it again.
 */
const discarded = new WeakSet<RedisClientLike>();

export function discard(client: RedisClientLike): void {
  if (discarded.has(client)) return;
  discarded.add(client);
  client.on('ready', () => {
    try {
      client.destroy();
    } catch {
      // Already closed: nothing left to release.
    }
  });
  try {
    client.destroy();
  } catch {
    // Already closed.
  }
}

const warnedClients = new WeakSet<object>();

/**
 * Tells `warn` once per client when the host's client has no 'error' listener: node-redis then crashes the process
 * with an unhandled 'error' event the first time Redis drops.
 */
export function warnIfNoErrorListener(client: RedisClientLike, who: string, warn: (message: string) => void): void {
  if (typeof client.listenerCount !== 'function' || client.listenerCount('error') > 0 || warnedClients.has(client)) return;
  warnedClients.add(client);
  warn(`the node-redis client given to ${who} has no 'error' listener: the first time Redis drops, that client's ` +
    `'error' event crashes the process. Add client.on('error', (err) => logger.warn(err)) where you create it.`);
}
