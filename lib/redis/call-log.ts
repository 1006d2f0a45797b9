/**
 * Recent calls shared by every instance: one Redis list, newest first, trimmed to the capacity by each append, and
 * a channel each append is published on, so the console of every instance lists and hears every instance's calls.
 */
import type { CallLog, CallRecordListener } from '../console/calls/contract.js';
import type { CallRecord } from '../console/protocol.js';
import { checkCapacity } from '../console/calls/memory-log.js';
import { parseCall, tellListeners } from '../console/calls/stored-call.js';
import { discard, isReplyError, type RedisClientLike } from './client.js';
import { withDeadline } from '../webhooks/registry/shared/contact.js';
import { script } from './scripts.js';
import { sendVia, topologyOf, type RedisTopology } from './topology.js';
import { errorFields, safeLogger, type WebhookLogger } from '../core/logger.js';

/** The part of a node-redis client (5 or later) the call log uses: the registry's, plus `subscribe` for the channel. */
export interface RedisCallLogClient extends RedisClientLike {
  duplicate?(...overrides: never[]): RedisCallLogClient;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  /** Used only on a client that cannot be duplicated (node-redis 5's Sentinel client), whose subscription is shared. */
  unsubscribe?(...args: never[]): Promise<unknown>;
}

export interface RedisCallLogOptions {
  /**
   * A connected node-redis client (5 or later): `createClient()`, `createCluster()` or `createSentinel()`. Appends
   * and reads go through it; the subscription opens its own connection with `duplicate()`. The log never closes this
   * client: it stays the host's.
   */
  client: RedisCallLogClient;
  /** Starts the list's key and the channel's name: `<keyPrefix>calls` and `<keyPrefix>calls:new`. Default `workflow-webhooks:`. */
  keyPrefix?: string;
  /** How many calls the list keeps, the oldest going first: a whole number from 1 to 100 000. Default 200. */
  capacity?: number;
  /** Longest wait for an append or a read before it rejects. Default 2000 ms. */
  commandTimeoutMs?: number;
  /**
   * Hears the subscription connection's failures (once per outage: node-redis reconnects by itself and subscribes
   * again). Default: the `logger`'s error, else a line on stderr.
   */
  onError?: (error: Error) => void;
  /** Where the subscription's failures go when there is no `onError` (pino/console shape), with their cause. */
  logger?: WebhookLogger;
}

/** KEYS[1] the list; ARGV[1] the call's JSON, [2] capacity, [3] channel. One atomic step, whatever else the client sends. */
const APPEND = script(`
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('PUBLISH', ARGV[3], ARGV[1])
return 1`, false);

function fail(name: string, rule: string): never {
  throw new TypeError(`workflow-webhooks/redis: RedisCallLog option ${name} ${rule}.`);
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * The subscription of a client that cannot be duplicated (node-redis 5's Sentinel client, whose subscriptions run on
 * a connection of their own inside it): subscribes through the host's client, and closing it unsubscribes this log's
 * listener only, never the client.
 */
function sharedSubscription(client: RedisCallLogClient): RedisCallLogClient {
  const subscribed: Array<[string, (message: string) => void]> = [];
  return {
    connect: () => Promise.resolve(),
    on: () => undefined,
    sendCommand: (...args: never[]) => client.sendCommand(...args),
    subscribe: (channel, listener) => {
      subscribed.push([channel, listener]);
      return client.subscribe(channel, listener);
    },
    destroy: () => {
      const unsubscribe = client.unsubscribe as ((channel: string, listener: (message: string) => void) => Promise<unknown>) | undefined;
      for (const [channel, listener] of subscribed.splice(0)) void unsubscribe?.call(client, channel, listener).catch(() => undefined);
    },
  };
}

function stderrErrors(error: Error): void {
  console.error('workflow-webhooks/redis: the RedisCallLog subscription failed; it reconnects by itself:', error);
}

export class RedisCallLog implements CallLog {
  readonly capacity: number;
  readonly #client: RedisCallLogClient;
  readonly #topology: RedisTopology;
  readonly #key: string;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #onError: (error: Error) => void;
  readonly #listeners = new Set<CallRecordListener>();
  #subscriber: RedisCallLogClient | undefined;
  #subscribing: Promise<void> | undefined;
  #closed = false;

  constructor(options: RedisCallLogOptions) {
    if (typeof options !== 'object' || options === null) fail('object', 'is required: new RedisCallLog({ client })');
    const { client } = options;
    if (typeof client?.sendCommand !== 'function' || typeof client.subscribe !== 'function'
      || (typeof client.duplicate !== 'function' && typeof client.unsubscribe !== 'function')) {
      fail('client', 'must be a node-redis client (createClient(), createCluster() or createSentinel() from the redis package, version 5 or later)');
    }
    const keyPrefix = options.keyPrefix ?? 'workflow-webhooks:';
    if (typeof keyPrefix !== 'string') fail('keyPrefix', 'must be a string');
    const timeoutMs = options.commandTimeoutMs ?? 2000;
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) fail('commandTimeoutMs', 'must be a positive number');
    if (options.onError !== undefined && typeof options.onError !== 'function') fail('onError', 'must be a function');
    if (options.logger !== undefined && (typeof options.logger?.error !== 'function' || typeof options.logger.warn !== 'function')) {
      fail('logger', 'must have error(fields, message) and warn(fields, message)');
    }
    this.capacity = checkCapacity(options.capacity, 'RedisCallLog');
    this.#client = client;
    this.#topology = topologyOf(client);
    this.#key = `${keyPrefix}calls`;
    this.#channel = `${keyPrefix}calls:new`;
    this.#timeoutMs = timeoutMs;
    const logger = options.logger === undefined ? undefined : safeLogger(options.logger);
    const onError = options.onError ?? (logger === undefined ? stderrErrors : (error: Error) => {
      logger.error(errorFields(error), 'workflow-webhooks/redis: the RedisCallLog subscription failed; it reconnects by itself');
    });
    this.#onError = (error) => {
      try {
        onError(error);
      } catch {
        // A host's listener must not break the log.
      }
    };
  }

  /** Pushes the call, trims the list to the capacity and publishes it, in one step. */
  async append(call: CallRecord): Promise<void> {
    const tail = ['1', this.#key, JSON.stringify(call), String(this.capacity), this.#channel];
    try {
      await this.#send(['EVALSHA', APPEND.sha, ...tail]).catch((error: unknown) => {
        // A Redis that has not seen the script yet (or restarted) learns it from its source, once.
        if (!isReplyError(error) || !(error as Error).message.startsWith('NOSCRIPT')) throw error;
        return this.#send(['EVAL', APPEND.source, ...tail]);
      });
    } catch (error) {
      throw this.#failure(error, 'appending a call');
    }
  }

  /** The newest calls first, at most `limit` (and the capacity); an entry that does not parse is left out. */
  async recent(limit = this.capacity): Promise<CallRecord[]> {
    const count = Math.min(Math.floor(limit), this.capacity);
    if (!(count >= 1)) return [];
    const reply = await this.#send(['LRANGE', this.#key, '0', String(count - 1)]).catch((error: unknown) => {
      throw this.#failure(error, 'reading the recent calls');
    });
    return (Array.isArray(reply) ? reply : []).flatMap((text) => parseCall(text) ?? []);
  }

  /** Hears every call appended to the list from now on, by any instance; the first subscribe opens the subscription. */
  subscribe(listener: CallRecordListener): () => void {
    if (this.#closed) throw new Error('workflow-webhooks/redis: the RedisCallLog was closed; subscribe() needs a new one.');
    this.#listeners.add(listener);
    this.#subscribe();
    return () => { this.#listeners.delete(listener); };
  }

  /**
   * Resolves once the subscription hears the channel (at once before the first subscribe()); rejects when it could
   * not subscribe (the next subscribe() tries again). Calls appended before it resolved may go unheard.
   */
  subscribed(): Promise<void> {
    return this.#subscribing ?? Promise.resolve();
  }

  /** Closes the subscription connection this log opened; the client it was given stays open, and with it append() and recent(). */
  close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    if (this.#subscriber !== undefined) discard(this.#subscriber);
    this.#subscriber = undefined;
    return Promise.resolve();
  }

  /** One command, bounded by the deadline: a paused or unreachable Redis never holds a caller longer. */
  #send(args: readonly string[]): Promise<unknown> {
    return withDeadline(sendVia(this.#client, this.#topology, args, this.#key), this.#timeoutMs, () => new Error(`no answer within ${this.#timeoutMs} ms`));
  }

  #failure(error: unknown, doing: string): Error {
    return new Error(`workflow-webhooks/redis: RedisCallLog failed while ${doing}: ${asError(error).message}`, { cause: error });
  }

  #subscribe(): void {
    if (this.#subscriber !== undefined) return;
    const connection = this.#client.duplicate?.() ?? sharedSubscription(this.#client);
    this.#subscriber = connection;
    let down = false;
    connection.on('error', (error) => {
      if (down || this.#closed) return;
      down = true;
      this.#onError(asError(error));
    });
    connection.on('ready', () => { down = false; });
    this.#subscribing = (async () => {
      await connection.connect();
      await connection.subscribe(this.#channel, (message) => tellListeners(this.#listeners, message));
    })().catch((error: unknown) => {
      if (this.#subscriber === connection) this.#subscriber = undefined;
      discard(connection);
      if (this.#closed) return;
      const failure = new Error(`workflow-webhooks/redis: RedisCallLog could not subscribe to ${this.#channel}: ${asError(error).message}`, { cause: error });
      this.#onError(failure);
      throw failure;
    });
    // Heard through onError already; subscribed() hands the rejection to whoever asks.
    this.#subscribing.catch(() => undefined);
  }
}
