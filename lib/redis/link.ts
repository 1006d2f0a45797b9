/**
 * The registry's command connection: its own duplicate of the host's client (the host's connection is never
 * touched), every command bounded by a deadline, scripts sent by SHA with a fallback to their source. A command
 * that fails for want of Redis rejects with REGISTRY_UNAVAILABLE, and the next one opens a fresh connection, so a
 * paused, killed or black-holed Redis never makes a caller wait longer than the deadline.
 */
import { WebhookError } from '../core/errors.js';
import { unavailable as storeUnavailable, withDeadline } from '../webhooks/registry/shared/contact.js';
import { borrowed, canDuplicate, discard, isReplyError, type RedisClientLike } from './client.js';
import type { Script } from './scripts.js';
import { sendVia, type RedisTopology } from './topology.js';
import { oneConnectionOptions, sendInOrder } from './replica-acks.js';

/** Where a link's commands go: the kind of client, and a key of the store (on a cluster, all share its slot). */
export interface RedisRoute {
  topology: RedisTopology;
  key: string;
}

/** A command Redis could not answer: 503 REGISTRY_UNAVAILABLE, saying what was being done. */
export function unavailable(cause: unknown, doing: string): WebhookError {
  return storeUnavailable('Redis', cause, doing);
}

/** node-redis' errors for a command refused before it was written: the client is offline or closed. */
function neverSent(error: unknown): boolean {
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name;
  return name === 'ClientOfflineError' || name === 'ClientClosedError';
}

class DeadlineError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlineError';
  }
}

/**
 * Opens a duplicate of `source`, with an error listener at once (node-redis crashes the process without one). A
 * plain client refuses commands while it is offline instead of queueing them; a cluster or Sentinel client takes
 * its options as they are (an override would replace the host's node options, TLS and password among them), and
 * the command deadline bounds the wait. A client that cannot be duplicated is shared (`borrowed`).
 */
export async function openDuplicate(source: RedisClientLike, ms: number, onError: (error: unknown) => void, topology: RedisTopology,
  oneConnection = false): Promise<RedisClientLike> {
  if (!canDuplicate(source)) return borrowed(source);
  const duplicate = source.duplicate as (overrides?: object) => RedisClientLike;
  // A link that sends a write and then WAIT for it needs them on one connection (see replica-acks.ts).
  const overrides = oneConnection ? oneConnectionOptions(topology) : topology === 'single' ? { disableOfflineQueue: true } : undefined;
  const client = duplicate.call(source, overrides);
  client.on('error', (error) => onError(error));
  try {
    await withDeadline(client.connect(), ms, () => new DeadlineError(ms));
    return client;
  } catch (error) {
    discard(client);
    throw error;
  }
}

export class RedisLink {
  readonly #source: RedisClientLike;
  readonly #timeoutMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #route: RedisRoute;
  readonly #oneConnection: boolean;
  #client: RedisClientLike | undefined;
  #opening: Promise<RedisClientLike> | undefined;
  #closed = false;

  /** `oneConnection`: every command on one connection to the primary, as `inOrder` needs (see replica-acks.ts). */
  constructor(source: RedisClientLike, timeoutMs: number, onError: (error: unknown) => void, route: RedisRoute, oneConnection = false) {
    this.#source = source;
    this.#oneConnection = oneConnection;
    this.#route = route;
    this.#timeoutMs = timeoutMs;
    this.#onError = onError;
  }

  /** Sends one command; `doing` completes the error message ("… while activating a workflow"). */
  command(args: readonly string[], doing: string): Promise<unknown> {
    return this.#send((client) => sendVia(client, this.#route.topology, args, this.#route.key), doing);
  }

  /** Sends commands one after another on one connection (a write, then WAIT for it: see replica-acks.ts). */
  inOrder(commands: ReadonlyArray<ReadonlyArray<string>>, doing: string): Promise<unknown[]> {
    return this.#send((client) => sendInOrder(client, this.#route.topology, commands, this.#route.key), doing);
  }

  async #send<T>(work: (client: RedisClientLike) => Promise<T>, doing: string): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      if (this.#closed) throw new WebhookError('REGISTRY_UNAVAILABLE', 'The Redis webhook registry was closed.');
      let client: RedisClientLike;
      try {
        client = await this.#open();
      } catch (error) {
        throw unavailable(error, doing);
      }
      try {
        return await withDeadline(work(client), this.#timeoutMs, () => new DeadlineError(this.#timeoutMs));
      } catch (error) {
        if (isReplyError(error)) throw error;
        this.#drop(client);
        // A connection that was already lost never sent the command: one fresh connection may, once.
        if (attempt === 0 && neverSent(error)) continue;
        throw unavailable(error, doing);
      }
    }
  }

  /** Runs a script by its SHA, loading it with EVAL the first time this Redis sees it. */
  async script(script: Script, keys: readonly string[], args: readonly string[], doing: string): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.command(['EVALSHA', script.sha, ...tail], doing);
    } catch (error) {
      if (!isReplyError(error) || !(error as Error).message.startsWith('NOSCRIPT')) throw error;
      return await this.command(['EVAL', script.source, ...tail], doing);
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#client !== undefined) discard(this.#client);
    this.#client = undefined;
  }

  #open(): Promise<RedisClientLike> {
    if (this.#client !== undefined) return Promise.resolve(this.#client);
    let opened: RedisClientLike | undefined;
    // A connection that reports an error is replaced by the next command, instead of waiting on node-redis' reconnects.
    const onError = (error: unknown): void => {
      if (opened !== undefined) this.#drop(opened);
      this.#onError(error);
    };
    this.#opening ??= openDuplicate(this.#source, this.#timeoutMs, onError, this.#route.topology, this.#oneConnection).then((client) => {
      opened = client;
      if (this.#closed) {
        discard(client);
        throw new WebhookError('REGISTRY_UNAVAILABLE', 'The Redis webhook registry was closed.');
      }
      this.#client = client;
      return client;
    }).finally(() => { this.#opening = undefined; });
    return this.#opening;
  }

  #drop(client: RedisClientLike): void {
    if (this.#client === client) this.#client = undefined;
    discard(client);
  }
}
