/**
 * The registry's command connection: its own duplicate of the host's client (the host's connection is never
 * touched), every command bounded by a deadline, scripts sent by SHA with a fallback to their source. A command
 * that fails for want of Redis rejects with REGISTRY_UNAVAILABLE, and the next one opens a fresh connection, so a
 * paused, killed or black-holed Redis never makes a caller wait longer than the deadline.
 */
import { WebhookError } from '../webhooks/errors.js';
import { discard, isReplyError, type RedisClientLike } from './client.js';
import type { Script } from './scripts.js';

export function unavailable(cause: unknown, doing: string): WebhookError {
  const reason = cause instanceof Error && cause.message !== '' ? `: ${cause.message}` : '';
  return new WebhookError('REGISTRY_UNAVAILABLE', `Redis could not be reached while ${doing}${reason}.`, {
    cause,
    hint: 'Changes to the webhook registry need Redis; calls to active webhooks are still served from memory. Check that Redis is running and reachable.',
  });
}

/** Settles like `work`, or rejects with `onLate()` after `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number, onLate: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(onLate()), ms); });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
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

/** Opens a duplicate of `source`, with an error listener at once (node-redis crashes the process without one). */
export async function openDuplicate(source: RedisClientLike, ms: number, onError: (error: unknown) => void): Promise<RedisClientLike> {
  const client = source.duplicate({ disableOfflineQueue: true });
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
  #client: RedisClientLike | undefined;
  #opening: Promise<RedisClientLike> | undefined;
  #closed = false;

  constructor(source: RedisClientLike, timeoutMs: number, onError: (error: unknown) => void) {
    this.#source = source;
    this.#timeoutMs = timeoutMs;
    this.#onError = onError;
  }

  /** Sends one command; `doing` completes the error message ("… while activating a workflow"). */
  async command(args: readonly string[], doing: string): Promise<unknown> {
    for (let attempt = 0; ; attempt += 1) {
      if (this.#closed) throw new WebhookError('REGISTRY_UNAVAILABLE', 'The Redis webhook registry was closed.');
      let client: RedisClientLike;
      try {
        client = await this.#open();
      } catch (error) {
        throw unavailable(error, doing);
      }
      try {
        return await withDeadline(client.sendCommand(args), this.#timeoutMs, () => new DeadlineError(this.#timeoutMs));
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
    this.#opening ??= openDuplicate(this.#source, this.#timeoutMs, onError).then((client) => {
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
