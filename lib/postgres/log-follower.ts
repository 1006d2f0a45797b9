/**
 * Follows the change log: one connection kept for LISTEN (of the directUrl's pool, when the registry's goes through a
 * pooler in transaction mode), so a change reaches this instance when it commits, and a read every second besides, so
 * a notification lost with a dropped connection or a restarted database delays a change by a second at most. Entries
 * are applied one at a time, in order; a missing number asks for a full reload. A dropped LISTEN connection is
 * replaced, and what was missed meanwhile is read on return. A log that went back (a failover to a standby that had not
 * received its newest entries, a restore from a backup) numbers new entries as the lost ones were: the entry last
 * applied is compared with the one the log holds under its number, and a difference asks for a full reload too.
 *
 * A flood of notifications (thousands of changes a second) is coalesced: at most one read in flight and one queued,
 * reads at least READ_GAP_MS apart, and a notification of an entry a read already applied asks for none. Every change
 * is still applied: a notification of an entry not yet read always leaves a read queued. A read refused because the
 * pool had no connection free (the database busy, answering others) is load, not a lost database: it is not reported
 * as one, and the next notification or poll reads again.
 */
import type { ChangeEntry, ChangeLog } from './change-log.js';
import { channelOf } from './change-log.js';
import { connectWithin, type PostgresClientLike, type PostgresPoolLike } from './pool.js';
import { isStoreBusy, withDeadline } from '../webhooks/registry/shared/contact.js';

export interface LogFollower {
  /** Applies one entry; called in log order, never concurrently. */
  apply(entry: ChangeEntry): Promise<void>;
  /** The log skipped numbers: reload everything, and resolve the version the reload stands at. */
  reload(): Promise<number>;
  /** Whether PostgreSQL answers; called after every read. */
  contact(error?: unknown): void;
}

const POLL_MS = 1000;
/** Least time between the starts of two reads: a flood of changes is read in batches, not one read per notification. */
const READ_GAP_MS = 50;
const BATCH = 500;
const RETRY_MS = [50, 100, 250, 500, 1000];

function sameEntry(a: ChangeEntry, b: ChangeEntry): boolean {
  return a.op === b.op && a.subject === b.subject && a.data === b.data;
}

export class LogReader {
  readonly #pool: () => Promise<PostgresPoolLike>;
  readonly #log: ChangeLog;
  readonly #schema: string;
  readonly #timeoutMs: number;
  readonly #follower: LogFollower;
  #version: number;
  /** The entry numbered #version as applied here; undefined after a load, when the log's own entry is taken as it. */
  #applied: ChangeEntry | undefined;
  #listener: PostgresClientLike | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reading: Promise<void> | undefined;
  /** A read was asked for (a poll, a LISTEN opened) while one was in flight: it follows. */
  #again = false;
  /** The highest entry number notifications announced; a read follows while it is ahead of #version. */
  #heard = 0;
  /** When (performance.now()) the last read started. */
  #readAt = Number.NEGATIVE_INFINITY;
  #failures = 0;
  #stopped = false;
  readonly #gone = new WeakSet<PostgresClientLike>();
  readonly #onNotification = (message?: { payload?: string }): void => this.#notified(message?.payload);

  constructor(pool: () => Promise<PostgresPoolLike>, log: ChangeLog, schema: string, timeoutMs: number, follower: LogFollower, from: number) {
    this.#pool = pool;
    this.#log = log;
    this.#schema = schema;
    this.#timeoutMs = timeoutMs;
    this.#follower = follower;
    this.#version = from;
  }

  /** The number of the last entry applied (or reloaded past). */
  get version(): number {
    return this.#version;
  }

  start(): void {
    this.#timer = setInterval(() => this.#wake(), POLL_MS).unref();
    void this.#listen();
  }

  /** A change committed: its entry's number is the payload. One this instance read already asks for no read. */
  #notified(payload: string | undefined): void {
    const version = /^\d{1,15}$/.test(payload ?? '') ? Number(payload) : Number.NaN;
    if (Number.isNaN(version)) {
      this.#wake();
      return;
    }
    if (version <= this.#version) return;
    this.#heard = Math.max(this.#heard, version);
    if (this.#reading === undefined) this.#wake();
  }

  /** Reads what is new now (a poll, a LISTEN opened, a notification), or once the read in flight is done. */
  #wake(): void {
    if (this.#stopped) return;
    if (this.#reading !== undefined) {
      this.#again = true;
      return;
    }
    const gap = this.#readAt + READ_GAP_MS - performance.now();
    const paused = gap > 0 ? new Promise<void>((resolve) => { setTimeout(resolve, gap).unref(); }) : undefined;
    this.#reading = (paused === undefined ? this.#read() : paused.then(() => this.#read())).finally(() => {
      this.#reading = undefined;
      // A notification of an entry this read did not reach queues the next read; one it reached does not.
      if (this.#again || this.#heard > this.#version) {
        this.#again = false;
        this.#wake();
      }
    });
  }

  async #read(): Promise<void> {
    if (this.#stopped) return;
    this.#readAt = performance.now();
    try {
      for (;;) {
        const entries = await this.#log.from(this.#version, BATCH);
        this.#follower.contact();
        const held = entries[0]?.version === this.#version ? entries.shift() : undefined;
        // The log keeps its newest entries, never fewer than 100: one with nothing at or after an entry applied here went
        // back. Known only once an entry was seen here, so a reload is never repeated over a log that lacks its own head.
        const applied = this.#applied;
        const wentBack = applied !== undefined && (held === undefined ? entries.length === 0 : !sameEntry(held, applied));
        if (wentBack || (entries.length > 0 && entries[0]?.version !== this.#version + 1)) {
          this.#version = await this.#follower.reload();
          this.#applied = undefined;
          // Numbers heard before a log that went back may never come again.
          this.#heard = this.#version;
          continue;
        }
        this.#applied ??= held;
        for (const entry of entries) {
          if (this.#stopped) return;
          await this.#follower.apply(entry);
          this.#version = entry.version;
          this.#applied = entry;
        }
        if (entries.length < BATCH) return;
      }
    } catch (error) {
      // Read again at the next notification or poll, not at once: over and over against a database away or busy.
      this.#heard = this.#version;
      if (!isStoreBusy(error)) this.#follower.contact(error);
    }
  }

  /** Opens the LISTEN connection (again, after a drop), then reads what it may have missed. */
  async #listen(): Promise<void> {
    if (this.#stopped || this.#listener !== undefined) return;
    let client: PostgresClientLike | undefined;
    try {
      client = await connectWithin(await this.#pool(), this.#timeoutMs);
      const opened = client;
      // Kept on the connection after a drop (it may report more errors on its way out), taken off a healthy one at stop().
      opened.on('error', (error) => this.#dropped(opened, error));
      opened.on('notification', this.#onNotification);
      await withDeadline(opened.query(`LISTEN ${channelOf(this.#schema)}`), this.#timeoutMs, () => new Error(`LISTEN unanswered within ${this.#timeoutMs} ms`));
      // Dropped meanwhile (its error came before LISTEN's answer): released and replaced already.
      if (this.#gone.has(opened)) return;
      if (this.#stopped) {
        this.#gone.add(opened);
        opened.release(new Error('the registry stopped following its change log'));
        return;
      }
      this.#listener = opened;
      this.#failures = 0;
      this.#wake();
    } catch (error) {
      if (client !== undefined) this.#dropped(client, error);
      else this.#retry(error);
    }
  }

  #dropped(client: PostgresClientLike, error: unknown): void {
    // A connection may report more than one error on its way out: it is replaced once.
    if (this.#gone.has(client)) return;
    this.#gone.add(client);
    if (this.#listener === client) this.#listener = undefined;
    client.removeListener('notification', this.#onNotification);
    try {
      client.release(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // Released already.
    }
    this.#retry(error);
  }

  #retry(error: unknown): void {
    if (this.#stopped) return;
    this.#follower.contact(error);
    const delay = RETRY_MS[Math.min(this.#failures, RETRY_MS.length - 1)] as number;
    this.#failures += 1;
    setTimeout(() => void this.#listen(), delay).unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#reading;
    const listener = this.#listener;
    this.#listener = undefined;
    if (listener === undefined || this.#gone.has(listener)) return;
    listener.removeListener('notification', this.#onNotification);
    // Released with an error, so the pool closes it rather than lending it on still listening, with our error listener.
    this.#gone.add(listener);
    listener.release(new Error('the registry stopped following its change log'));
  }
}
