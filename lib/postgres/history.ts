/**
 * Call history shared by every instance, in PostgreSQL: one row per kept call in the registry's schema (table
 * `history_calls`), a batch added by one statement, found by SQL newest first, replays counted by one UPDATE, and
 * calls past the retention removed by the store itself after appends (no cron). It starts while the database is
 * away and reaches it at the next call; a failure for want of it is HISTORY_UNAVAILABLE.
 */
import { WebhookError } from '../core/errors.js';
import type {
  HistoryRecord, HistoryRetention, HistoryStore, HistoryStorePage, HistoryStoreQuery, ReplayClaim,
} from '../core/history.js';
import { recordTest } from '../webhooks/history/matches.js';
import { resolveRetention } from '../webhooks/history/retention.js';
import { historyUnavailable } from '../webhooks/history/store-calls.js';
import { isStoreOutage } from '../webhooks/registry/shared/contact.js';
import { columnText, fromColumnText, insertSql, insertValues, whereOf } from './history-sql.js';
import { checkConnection, fail, positive } from './options.js';
import { checkSchemaName, PostgresLink, StorePools, type PostgresPoolLike, type QueryResultLike } from './pool.js';
import { schemaOnce } from './schema.js';

export interface PostgresHistoryStoreOptions {
  /** The host's `pg.Pool` (it stays the host's). Give this or `connectionString`. */
  pool?: PostgresPoolLike;
  /** A connection string, for a pool of the store's own (ended by `close()`). */
  connectionString?: string;
  /**
   * A connection string that reaches the same database directly, for the schema's migration, as the registry's
   * `directUrl`; every other statement goes through `pool` or `connectionString`, which may be a pooler in
   * transaction mode (the store needs no session).
   */
  directUrl?: string;
  /** The schema, as the registry is given it (the calls live beside its tables). Default `workflow_webhooks`. */
  schema?: string;
  /** `true` (default): the first use creates or migrates the schema; `false`: it must be migrated ahead of time. */
  migrate?: boolean;
  /** Calls older than this are removed, in ms. Default 14 days (n8n's EXECUTIONS_DATA_MAX_AGE). */
  maxAgeMs?: number;
  /** At most this many calls are kept, the oldest going first. Default 10 000 (n8n's EXECUTIONS_DATA_PRUNE_MAX_COUNT). */
  maxEntries?: number;
  /** Longest wait for a statement before it rejects (HISTORY_UNAVAILABLE). Default 5000 ms: a batch may be large. */
  commandTimeoutMs?: number;
}

/** Appends prune at most this often, or sooner once a tenth of `maxEntries` was added since the last prune. */
const PRUNE_EVERY_MS = 5000;
/** The most calls one find reads (a page of the history API holds at most 500). */
const MAX_PAGE = 100_000;

export class PostgresHistoryStore implements HistoryStore {
  readonly retention: HistoryRetention;
  readonly #schema: string;
  readonly #table: string;
  readonly #link: PostgresLink;
  /** The link the migration runs on: the directUrl's, when given. */
  readonly #migrationLink: PostgresLink;
  readonly #pools: StorePools;
  readonly #ready: () => Promise<unknown>;
  #closed = false;
  /** When the store last pruned (performance.now()), how many calls it added since, and the prune under way. */
  #prunedAt = Number.NEGATIVE_INFINITY;
  #addedSincePrune = 0;
  #pruning: Promise<unknown> | undefined;

  constructor(options: PostgresHistoryStoreOptions) {
    if (typeof options !== 'object' || options === null) fail('object', 'is required: new PostgresHistoryStore({ pool })');
    // The migration takes one connection of the directUrl's pool: nothing else of the store needs a session.
    this.#pools = new StorePools(checkConnection(options, 'PostgresHistoryStore'), 1);
    if (options.migrate !== undefined && typeof options.migrate !== 'boolean') fail('migrate', 'must be true or false');
    this.retention = resolveRetention({ maxAgeMs: options.maxAgeMs, maxEntries: options.maxEntries }, 10_000, 'PostgresHistoryStore');
    this.#schema = checkSchemaName(options.schema);
    this.#table = `${this.#schema}.history_calls`;
    const timeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs, 5000);
    this.#link = new PostgresLink(() => this.#pools.main(), timeoutMs, this.#schema);
    this.#migrationLink = this.#pools.direct ? new PostgresLink(() => this.#pools.session(), timeoutMs, this.#schema) : this.#link;
    this.#ready = schemaOnce(options.migrate ?? true, this.#link, this.#migrationLink, this.#schema);
  }

  /** Adds the batch in one statement (a call already kept is left as it is), then prunes when it is time. */
  async append(records: readonly HistoryRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.#query(insertSql(this.#table), insertValues(records), 'keeping calls in history');
    this.#addedSincePrune += records.length;
    const due = performance.now() - this.#prunedAt >= PRUNE_EVERY_MS || this.#addedSincePrune >= Math.ceil(this.retention.maxEntries / 10);
    // Kept calls are not lost when the prune fails: the next append tries again, and prune() says why.
    if (due) await this.#autoPrune().catch(() => undefined);
  }

  async get(id: string): Promise<HistoryRecord | undefined> {
    const found = await this.#query(`SELECT replays, record FROM ${this.#table} WHERE id = $1 AND at >= $2`,
      [columnText(id), this.#cutoff(Date.now())], 'reading a call of history');
    const row = found.rows[0];
    return row === undefined ? undefined : recordOf(row);
  }

  /**
   * Every filter in SQL, newest first; each row read is checked again with the one reading of the filter, so a page
   * may hold fewer than `limit` and still give `next` (a sealed body is a candidate of a body filter).
   */
  async find(query: HistoryStoreQuery): Promise<HistoryStorePage> {
    const limit = Math.min(Math.floor(query.limit), MAX_PAGE);
    if (!(limit >= 1)) return { records: [] };
    const where = whereOf(query, this.#cutoff(Date.now()));
    const found = await this.#query(`SELECT id, replays, record FROM ${this.#table} WHERE ${where.clause} ORDER BY id DESC LIMIT ${limit + 1}`,
      where.values, 'finding calls in history');
    const rows = found.rows.slice(0, limit);
    const records = rows.flatMap((row) => recordOf(row) ?? []).filter(recordTest(query));
    return found.rows.length > limit ? { records, next: fromColumnText((rows.at(-1) as { id: string }).id) } : { records };
  }

  /** One UPDATE claims it; only when it claimed nothing does a read tell a missing call from one replayed before. */
  async claimReplay(id: string, again: boolean): Promise<ReplayClaim> {
    const key = columnText(id);
    const cutoff = this.#cutoff(Date.now());
    const claimed = await this.#query(`UPDATE ${this.#table} SET replays = replays + 1 WHERE id = $1 AND at >= $2 AND (replays = 0 OR $3) RETURNING replays`,
      [key, cutoff, again], 'claiming a replay');
    if (claimed.rows[0] !== undefined) return { outcome: 'claimed', replays: Number(claimed.rows[0].replays) };
    const found = await this.#query(`SELECT replays FROM ${this.#table} WHERE id = $1 AND at >= $2`, [key, cutoff], 'claiming a replay');
    return found.rows[0] === undefined ? { outcome: 'missing' } : { outcome: 'replayedBefore', replays: Number(found.rows[0].replays) };
  }

  async giveBackReplay(id: string): Promise<void> {
    await this.#query(`UPDATE ${this.#table} SET replays = replays - 1 WHERE id = $1 AND replays > 0`, [columnText(id)], 'giving back a replay');
  }

  /** One statement: the calls older than `maxAgeMs`, then those past the newest `maxEntries`. */
  async prune(now = Date.now()): Promise<number> {
    const table = this.#table;
    const cutoff = this.#cutoff(now);
    const found = await this.#query(`WITH aged AS (DELETE FROM ${table} WHERE at < $1 RETURNING 1),
      counted AS (DELETE FROM ${table} WHERE at >= $1
        AND id <= (SELECT id FROM ${table} WHERE at >= $1 ORDER BY id DESC OFFSET $2 LIMIT 1) RETURNING 1)
      SELECT (SELECT count(*) FROM aged) + (SELECT count(*) FROM counted) AS gone`,
    [cutoff, this.retention.maxEntries], 'removing calls past the history retention');
    return Number(found.rows[0]?.gone ?? 0);
  }

  /** Ends the pools the store opened; the host's pool stays open. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#pruning?.catch(() => undefined);
    this.#link.close();
    this.#migrationLink.close();
    await this.#pools.end().catch(() => undefined);
  }

  #cutoff(now: number): number {
    return Math.floor(now - this.retention.maxAgeMs);
  }

  /** One prune at a time per store, however many appends find it due. */
  #autoPrune(): Promise<unknown> {
    this.#pruning ??= this.prune().then(() => {
      this.#prunedAt = performance.now();
      this.#addedSincePrune = 0;
    }).finally(() => { this.#pruning = undefined; });
    return this.#pruning;
  }

  async #query(sql: string, values: unknown[], doing: string): Promise<QueryResultLike> {
    try {
      if (this.#closed) throw new WebhookError('HISTORY_UNAVAILABLE', 'The PostgresHistoryStore was closed.');
      await this.#ready();
      return await this.#link.query(sql, values, doing);
    } catch (error) {
      throw historyFailure(error);
    }
  }
}

/** A row as the record it keeps, with the count of replays the table keeps; undefined for one that does not parse. */
function recordOf(row: Record<string, unknown>): HistoryRecord | undefined {
  try {
    return { ...(JSON.parse(row.record as string) as HistoryRecord), replays: Number(row.replays) };
  } catch {
    return undefined;
  }
}

/**
 * The link's refusal for want of the database, as history's: HISTORY_UNAVAILABLE with Retry-After and what it means
 * for history. Other refusals (a schema of another version, a missing grant) keep their words and hint.
 */
function historyFailure(error: unknown): unknown {
  if (!(error instanceof WebhookError) || error.code !== 'REGISTRY_UNAVAILABLE') return error;
  return historyUnavailable(error, 'PostgreSQL', isStoreOutage(error) ? {} : { hint: error.hint });
}
