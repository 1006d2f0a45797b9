/**
 * Hands BullMQ a node-redis Redis Cluster (`createCluster`) or Sentinel client (`createSentinel`) dressed as the one
 * kind BullMQ's own node-redis adapter takes: a plain `createClient()`.
 *
 * Why it exists (checked against BullMQ 6.7.0 and node-redis 6.3.1, node_modules/bullmq/dist/esm/classes/
 * node-redis-client.js and redis-connection.js): BullMQ tells a client instance from options by `connect`,
 * `disconnect` and `duplicate` (a Sentinel client has no `disconnect`, so BullMQ takes it for options and tries to
 * load ioredis, which native ESM cannot); its adapter waits for a 'ready' event a cluster never emits (it emits
 * 'connect'); it sends keyless commands (INFO, CLIENT SETNAME, SCRIPT LOAD, SCAN) through methods that on a cluster
 * reach a random node; and inside MULTI it runs its scripts by SHA, which fails on a node or a new primary that never
 * loaded them. Everything else its adapter calls (hGetAll, evalSha, bzPopMin, xAdd, …) the cluster and Sentinel
 * clients have with the same signatures, routed by key (cluster) or to the primary (Sentinel): those pass through
 * untouched, so MOVED, reconnects and failovers are followed by node-redis itself, without a restart.
 *
 * Blocking commands: BullMQ duplicates its connection for BZPOPMIN, and a duplicate here is a whole new cluster or
 * Sentinel client with sockets of its own, so a blocked command never stalls another one.
 *
 * When BullMQ's adapter learns clusters (its `isCluster = false // TODO`), this file should go.
 */
import { EventEmitter } from 'node:events';
import { sendVia, type RedisTopology } from '../redis/topology.js';

type Inner = EventEmitter & {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  destroy(): unknown;
  close(): Promise<unknown>;
  duplicate(): Inner;
  multi(): Record<string, (...args: unknown[]) => unknown>;
  sendCommand(...args: unknown[]): Promise<unknown>;
};

interface ScriptOptions { keys?: unknown[]; arguments?: unknown[] }

/** The events BullMQ's adapter listens to, from the names each kind of client emits them under. */
const FORWARDED: Record<Exclude<RedisTopology, 'single'>, Record<string, string>> = {
  cluster: { connect: 'ready', disconnect: 'end', error: 'error' },
  sentinel: { ready: 'ready', end: 'end', reconnecting: 'reconnecting', error: 'error' },
};

class NodeRedisLookalike extends EventEmitter {
  readonly #inner: Inner;
  readonly #topology: Exclude<RedisTopology, 'single'>;
  readonly #routeKey: string;
  /** Script sources by SHA, from BullMQ's SCRIPT LOADs: MULTI runs them by source (see the opening comment). */
  readonly #scripts: Map<string, string>;
  /**
   * Closed on purpose: a socket error from here on (a Sentinel's observer losing its server meanwhile) is the close's,
   * and is not handed on. BullMQ's adapter re-emits what it hears, and once BullMQ has let go of the connection nobody
   * listens to that: an 'error' nobody hears would end the host's process.
   */
  #closing = false;

  constructor(inner: Inner, topology: Exclude<RedisTopology, 'single'>, routeKey: string, scripts = new Map<string, string>()) {
    super();
    this.#inner = inner;
    this.#topology = topology;
    this.#routeKey = routeKey;
    this.#scripts = scripts;
    for (const [from, to] of Object.entries(FORWARDED[topology])) {
      // Always listened to, so an 'error' with nobody else listening never crashes the process.
      inner.on(from, (...args: unknown[]) => { if (to !== 'error' || (!this.#closing && this.listenerCount('error') > 0)) this.emit(to, ...args); });
    }
  }

  get isOpen(): boolean { return this.#inner.isOpen; }
  get isReady(): boolean { return this.#inner.isReady; }
  /** BullMQ reads `keyPrefix` and `maxRetriesPerRequest` here; neither applies. */
  get options(): Record<string, unknown> { return {}; }

  async connect(): Promise<this> {
    if (!this.#inner.isOpen) await this.#inner.connect();
    return this;
  }

  async disconnect(): Promise<void> { await this.destroy(); }
  async quit(): Promise<string> {
    this.#closing = true;
    await this.#inner.close();
    return 'OK';
  }

  async destroy(): Promise<void> {
    this.#closing = true;
    await this.#inner.destroy();
  }

  /** A new, unconnected client of the same kind. BullMQ's overrides (a connection name) are a plain client's options: left out. */
  duplicate(): NodeRedisLookalike {
    return lookalike(this.#inner.duplicate(), this.#topology, this.#routeKey, this.#scripts);
  }

  /** A raw command of BullMQ's (CLIENT LIST/INFO): to the node that holds the queue's keys, or the primary. */
  sendCommand(args: ReadonlyArray<string | Buffer>, options?: Record<string, unknown>): Promise<unknown> {
    return sendVia(this.#inner, this.#topology, args, this.#routeKey, options);
  }

  info(): Promise<unknown> { return this.sendCommand(['INFO']); }
  clientSetName(name: string): Promise<unknown> { return this.sendCommand(['CLIENT', 'SETNAME', name]); }

  async scriptLoad(lua: string): Promise<unknown> {
    const sha = await this.sendCommand(['SCRIPT', 'LOAD', lua]);
    this.#scripts.set(String(sha), lua);
    return sha;
  }

  async scan(cursor: string, options: { MATCH?: string; COUNT?: number } = {}): Promise<{ cursor: string; keys: string[] }> {
    const args = ['SCAN', cursor];
    if (options.MATCH !== undefined) args.push('MATCH', options.MATCH);
    if (options.COUNT !== undefined) args.push('COUNT', String(options.COUNT));
    const [next, keys] = await this.sendCommand(args) as [string, string[]];
    return { cursor: String(next), keys };
  }

  async *scanIterator(options: { MATCH?: string; COUNT?: number } = {}): AsyncGenerator<string[]> {
    let cursor = '0';
    do {
      const page = await this.scan(cursor, options);
      cursor = page.cursor;
      yield page.keys;
    } while (cursor !== '0');
  }

  keys(pattern: string): Promise<unknown> { return this.sendCommand(['KEYS', pattern]); }
  flushAll(): Promise<unknown> { return this.sendCommand(['FLUSHALL']); }

  /** MULTI of the inner client, whose scripts run by source: a SHA may be unknown to the node that gets them. */
  multi(): Record<string, (...args: unknown[]) => unknown> {
    const multi = this.#inner.multi();
    return new Proxy(multi, {
      get: (target, property, receiver) => {
        if (property !== 'evalSha' && property !== 'EVALSHA') return Reflect.get(target, property, receiver) as unknown;
        return (sha: string, options: ScriptOptions) => {
          const lua = this.#scripts.get(sha);
          return lua === undefined ? target.evalSha?.(sha, options) : target.eval?.(lua, options);
        };
      },
    });
  }
}

/** Everything this class does not define is the inner client's own method, called on it (routed by node-redis). */
function lookalike(inner: Inner, topology: Exclude<RedisTopology, 'single'>, routeKey: string, scripts?: Map<string, string>): NodeRedisLookalike {
  const own = new NodeRedisLookalike(inner, topology, routeKey, scripts);
  return new Proxy(own, {
    get(target, property) {
      if (property in target) {
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      }
      const value = (inner as unknown as Record<PropertyKey, unknown>)[property];
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(inner) : value;
    },
  });
}

/**
 * The connection to give BullMQ for `client`: a plain node-redis client as it is (BullMQ's adapter takes it), a
 * cluster or Sentinel client dressed as one. `routeKey` is any key of the queue: all of them share its slot.
 */
export function bullConnection(client: object, topology: RedisTopology, routeKey: string): object {
  if (topology === 'single') return client;
  return lookalike(client as Inner, topology, routeKey);
}
