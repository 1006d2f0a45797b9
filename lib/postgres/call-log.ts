/**
 * Recent calls shared by every instance, in PostgreSQL: one row per call in the registry's schema, trimmed to the
 * capacity by each append, and a notification of each append (the call itself, or its row number when it is too long
 * for a notification), so the console of every instance lists and hears every instance's calls.
 */
import type { CallLog, CallRecordListener } from '../console/calls/contract.js';
import type { CallRecord } from '../console/protocol.js';
import { checkCapacity } from '../console/calls/memory-log.js';
import { parseCall, tellListeners } from '../console/calls/stored-call.js';
import { errorFields, safeLogger, type WebhookLogger } from '../core/logger.js';
import { checkConnection, fail, positive } from './options.js';
import { checkSchemaName, connectWithin, PostgresLink, StorePools, type PostgresClientLike, type PostgresPoolLike } from './pool.js';
import { schemaOnce } from './schema.js';
import { checkSession } from './session-check.js';

export interface PostgresCallLogOptions {
  /** The host's `pg.Pool` (it stays the host's); the subscription borrows one of its connections. Give this or `connectionString`. */
  pool?: PostgresPoolLike;
  /** A connection string, for a pool of the log's own (ended by `close()`). */
  connectionString?: string;
  /**
   * A connection string that reaches the same database directly (or through a pooler in session mode), for the
   * subscription's LISTEN, when `pool` or `connectionString` goes through a pooler in transaction mode, where a LISTEN
   * hears nothing. Without it such a pooler is found out at the first subscribe() and told to `onError`.
   */
  directUrl?: string;
  /** The schema, as the registry is given it (the calls live beside its tables). Default `workflow_webhooks`. */
  schema?: string;
  /** `true` (default): the first use creates or migrates the schema; `false`: it must be migrated ahead of time. */
  migrate?: boolean;
  /** How many calls it keeps, the oldest going first: a whole number from 1 to 100 000. Default 200. */
  capacity?: number;
  /** Longest wait for an append or a read before it rejects. Default 2000 ms. */
  commandTimeoutMs?: number;
  /** Hears the subscription's failures (it opens again by itself). Default: the `logger`'s error, else a line on stderr. */
  onError?: (error: Error) => void;
  /** Where the subscription's failures go when there is no `onError` (pino/console shape), with their cause. */
  logger?: WebhookLogger;
}

/** A notification's payload is limited to 8000 bytes: a longer call is announced by its row number and read. */
const INLINE_BYTES = 7000;
const RETRY_MS = 500;

export class PostgresCallLog implements CallLog {
  readonly capacity: number;
  readonly #schema: string;
  readonly #link: PostgresLink;
  /** The statements' pool, and the directUrl's for the subscription only (it LISTENs on one connection). */
  readonly #pools: StorePools;
  /** Whether the subscription's connection was found to keep a session (a LISTEN there hears a notification). */
  #sessionChecked: Promise<void> | undefined;
  readonly #onError: (error: Error) => void;
  readonly #listeners = new Set<CallRecordListener>();
  readonly #ready: () => Promise<unknown>;
  #subscriber: PostgresClientLike | undefined;
  #subscribing: Promise<void> | undefined;
  #closed = false;
  /** Whether the subscription is down and that was told: a database away for a minute is one error, not one per try. */
  #down = false;

  constructor(options: PostgresCallLogOptions) {
    if (typeof options !== 'object' || options === null) fail('object', 'is required: new PostgresCallLog({ pool })');
    this.#pools = new StorePools(checkConnection(options, 'PostgresCallLog'), 1);
    if (options.migrate !== undefined && typeof options.migrate !== 'boolean') fail('migrate', 'must be true or false');
    if (options.onError !== undefined && typeof options.onError !== 'function') fail('onError', 'must be a function');
    this.capacity = checkCapacity(options.capacity, 'PostgresCallLog');
    this.#schema = checkSchemaName(options.schema);
    this.#link = new PostgresLink(() => this.#pools.main(), positive('commandTimeoutMs', options.commandTimeoutMs, 2000), this.#schema);
    // The statements' pool migrates too: only the subscription needs a session.
    this.#ready = schemaOnce(options.migrate ?? true, this.#link, this.#link, this.#schema);
    const logger = options.logger === undefined ? undefined : safeLogger(options.logger);
    const onError = options.onError ?? ((error: Error) => {
      if (logger === undefined) console.error('workflow-webhooks/postgres: the PostgresCallLog subscription failed; it opens again by itself:', error);
      else logger.error(errorFields(error), 'workflow-webhooks/postgres: the PostgresCallLog subscription failed; it opens again by itself');
    });
    this.#onError = (error) => {
      try {
        onError(error);
      } catch {
        // A host's listener must not break the log.
      }
    };
  }

  /** Adds the call, trims to the capacity and notifies every instance, in one statement. */
  async append(call: CallRecord): Promise<void> {
    await this.#ready();
    const s = this.#schema;
    await this.#link.query(`WITH added AS (INSERT INTO ${s}.calls (call) VALUES ($1) RETURNING seq),
      trimmed AS (DELETE FROM ${s}.calls WHERE seq <= (SELECT seq FROM added) - $2)
      SELECT pg_notify($3, CASE WHEN octet_length($1) <= ${INLINE_BYTES} THEN $1 ELSE '#' || seq END) FROM added`,
    [JSON.stringify(call), this.capacity, this.#channel], 'appending a call');
  }

  /** The newest calls first, at most `limit` (and the capacity); an entry that does not parse is left out. */
  async recent(limit = this.capacity): Promise<CallRecord[]> {
    const count = Math.min(Math.floor(limit), this.capacity);
    if (!(count >= 1)) return [];
    await this.#ready();
    const found = await this.#link.query(`SELECT call FROM ${this.#schema}.calls ORDER BY seq DESC LIMIT $1`, [count], 'reading the recent calls');
    return found.rows.flatMap((row) => parseCall(row.call) ?? []);
  }

  /** Hears every call appended from now on, by any instance; the first subscribe opens the subscription. */
  subscribe(listener: CallRecordListener): () => void {
    if (this.#closed) throw new Error('workflow-webhooks/postgres: the PostgresCallLog was closed; subscribe() needs a new one.');
    this.#listeners.add(listener);
    this.#subscribe();
    return () => { this.#listeners.delete(listener); };
  }

  /** Resolves once the subscription listens (at once before the first subscribe()). */
  subscribed(): Promise<void> {
    return this.#subscribing ?? Promise.resolve();
  }

  /** Gives back the subscription's connection (and ends the log's own pool, if it opened one). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    this.#subscriber?.release(new Error('the call log was closed'));
    this.#subscriber = undefined;
    this.#link.close();
    await this.#pools.end().catch(() => undefined);
  }

  /** Once per log: a LISTEN that would hear nothing is a setting to change, told once, never tried again. */
  #checkSession(): Promise<void> {
    this.#sessionChecked ??= (async () => checkSession({
      listen: await this.#pools.session(), notify: await this.#pools.main(), timeoutMs: this.#link.timeoutMs, who: 'PostgresCallLog', direct: this.#pools.direct,
    }))().catch((error: unknown) => {
      // An outage is checked again on the next try; a refusal stands.
      if (!(error instanceof TypeError)) this.#sessionChecked = undefined;
      throw error;
    });
    return this.#sessionChecked;
  }

  get #channel(): string {
    return `${this.#schema}_calls`;
  }

  #subscribe(): void {
    if (this.#subscribing !== undefined || this.#closed) return;
    this.#subscribing = (async () => {
      await this.#ready();
      await this.#checkSession();
      const client = await connectWithin(await this.#pools.session(), this.#link.timeoutMs);
      let dropped = false;
      client.on('error', (error) => {
        if (dropped) return;
        dropped = true;
        if (this.#subscriber === client) this.#subscriber = undefined;
        client.release(error);
        this.#reopen(error);
      });
      client.on('notification', (message) => void this.#deliver(message.payload ?? ''));
      await client.query(`LISTEN ${this.#channel}`);
      if (this.#closed) client.release(new Error('the call log was closed'));
      else {
        this.#subscriber = client;
        this.#down = false;
      }
    })();
    this.#subscribing.catch((error: unknown) => this.#reopen(error));
  }

  #reopen(error: unknown): void {
    this.#subscribing = undefined;
    if (this.#closed) return;
    if (error instanceof TypeError) {
      // No session for LISTEN: trying again would fail alike. Told once, with the fix.
      this.#onError(error);
      return;
    }
    if (!this.#down) this.#onError(new Error(`workflow-webhooks/postgres: PostgresCallLog lost its subscription to ${this.#channel}: ${(error as Error).message}; it opens again by itself`, { cause: error }));
    this.#down = true;
    setTimeout(() => this.#subscribe(), RETRY_MS).unref();
  }

  async #deliver(payload: string): Promise<void> {
    let text: unknown = payload;
    if (payload.startsWith('#')) {
      const found = await this.#link.query(`SELECT call FROM ${this.#schema}.calls WHERE seq = $1`, [Number(payload.slice(1))], 'reading an announced call').catch(() => undefined);
      text = found?.rows[0]?.call;
    }
    tellListeners(this.#listeners, text);
  }
}
