/**
 * Follows the change log on a connection of its own (a blocking XREAD would hold up every other command on a
 * shared one); on a client that cannot be duplicated (node-redis 5's Sentinel client) it shares the host's client
 * and asks every 50 ms instead of blocking. Entries are handed over one at a time, in order; a missing number (entries trimmed while this
 * instance was cut off, or a store that started over) asks for a full reload instead. Every read has a deadline,
 * so a paused Redis is noticed within a block period plus the command timeout, and a lost connection is replaced.
 */
import { canDuplicate, discard, type RedisClientLike } from './client.js';
import { openDuplicate, type RedisRoute } from './link.js';
import { withDeadline } from '../webhooks/registry/shared/contact.js';
import { sendVia } from './topology.js';

export interface LogEntry {
  id: string;
  version: number;
  fields: Record<string, string>;
}

export interface LogPosition {
  id: string;
  version: number;
}

export interface LogFollower {
  /** Applies one entry; called in log order, never concurrently. */
  apply(entry: LogEntry): Promise<void>;
  /** The log skipped numbers after `position`: reload everything, and say where to go on. */
  reload(position: LogPosition): Promise<LogPosition>;
  /** A read came back empty after the block period: a moment to check the store is still the same. Resolves a new
   * position when it had to reload everything. */
  idle(): Promise<LogPosition | undefined>;
  /** Whether Redis answers; called after every read. */
  contact(error?: unknown): void;
}

const BLOCK_MS = 1000;
/** How often a reader that shares the host's client (it cannot block that client's connection) asks for new entries. */
const POLL_MS = 50;
const BATCH = 500;
const RETRY_MS = [50, 100, 250, 500, 1000];

export class LogReader {
  readonly #source: RedisClientLike;
  readonly #key: string;
  readonly #route: RedisRoute;
  readonly #timeoutMs: number;
  readonly #follower: LogFollower;
  #position: LogPosition;
  #client: RedisClientLike | undefined;
  #running = false;
  #stopped: Promise<void> = Promise.resolve();
  #wake: (() => void) | undefined;
  #lastIdle = 0;

  constructor(source: RedisClientLike, route: RedisRoute, timeoutMs: number, follower: LogFollower, from: LogPosition) {
    this.#source = source;
    this.#route = route;
    this.#key = route.key;
    this.#timeoutMs = timeoutMs;
    this.#follower = follower;
    this.#position = from;
  }

  get position(): LogPosition {
    return this.#position;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#stopped = this.#loop();
  }

  /** Stops reading; resolves once the loop has ended. */
  stop(): Promise<void> {
    this.#running = false;
    if (this.#client !== undefined) discard(this.#client);
    this.#client = undefined;
    this.#wake?.();
    return this.#stopped;
  }

  async #loop(): Promise<void> {
    let failures = 0;
    while (this.#running) {
      try {
        await this.#readOnce();
        failures = 0;
      } catch (error) {
        if (!this.#running) break;
        if (this.#client !== undefined) discard(this.#client);
        this.#client = undefined;
        this.#follower.contact(error);
        await this.#pause(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] as number);
        failures += 1;
      }
    }
    // stop() may have come while a connection was opening: it is released here, once the loop is done with it.
    if (this.#client !== undefined) discard(this.#client);
    this.#client = undefined;
  }

  async #readOnce(): Promise<void> {
    this.#client ??= await openDuplicate(this.#source, this.#timeoutMs, () => undefined, this.#route.topology);
    if (!this.#running) return;
    const { id } = this.#position;
    const blocks = canDuplicate(this.#source);
    const command = ['XREAD', 'COUNT', String(BATCH), ...(blocks ? ['BLOCK', String(BLOCK_MS)] : []), 'STREAMS', this.#key, id];
    const limit = (blocks ? BLOCK_MS : 0) + this.#timeoutMs;
    const reply = await withDeadline(sendVia(this.#client, this.#route.topology, command, this.#key), limit, () => new Error(`no answer from Redis within ${limit} ms`));
    this.#follower.contact();
    const entries = parseRead(reply);
    if (entries.length === 0) {
      // Once per block period, as a blocking reader does, whether it blocks or polls.
      if (blocks || Date.now() - this.#lastIdle >= BLOCK_MS) {
        this.#lastIdle = Date.now();
        const moved = await this.#follower.idle();
        if (moved !== undefined) this.#position = moved;
      }
      if (!blocks) await this.#pause(POLL_MS);
      return;
    }
    for (const entry of entries) {
      if (!this.#running) return;
      if (entry.version !== this.#position.version + 1) {
        this.#position = await this.#follower.reload(this.#position);
        return;
      }
      await this.#follower.apply(entry);
      this.#position = { id: entry.id, version: entry.version };
    }
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** An XREAD reply: null; RESP2 [[stream, entries]]; or RESP3 { stream: entries } (an object or a Map). */
export function parseRead(reply: unknown): LogEntry[] {
  if (reply === null || typeof reply !== 'object') return [];
  let entries: unknown;
  if (Array.isArray(reply)) entries = (reply[0] as unknown[] | undefined)?.[1];
  else if (reply instanceof Map) entries = reply.values().next().value;
  else entries = Object.values(reply)[0];
  if (!Array.isArray(entries)) return [];
  return (entries as [string, string[]][]).map(([id, flat]) => parseEntry(id, flat));
}

export function parseEntry(id: string, flat: readonly string[]): LogEntry {
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let index = 0; index + 1 < flat.length; index += 2) fields[flat[index] as string] = flat[index + 1] as string;
  return { id, version: Number(fields.v), fields };
}
