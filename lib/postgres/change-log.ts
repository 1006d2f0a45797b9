/**
 * The change log on PostgreSQL. A change is one transaction that takes the log's one row (`UPDATE log_state …
 * RETURNING version`) and holds it until it commits: changes are numbered without holes and commit in their numbers'
 * order, so a reader that has
 * seen number N and finds N + 2 next knows it missed one (the log was trimmed while it was away) and reloads. Each
 * change appends its entry and NOTIFYs the channel, which PostgreSQL delivers at commit; a change that is refused or
 * fails rolls back whole, its number included.
 */
import type { PostgresLink, Transaction } from './pool.js';

/** One entry: what changed (`activate`, `deactivate`, `listen`, `unlisten`, `arrived`, `settled`), of what, with what. */
export interface ChangeEntry {
  version: number;
  op: string;
  subject: string;
  data: string | null;
}

/** The notification channel of a schema's change log. */
export function channelOf(schema: string): string {
  return `${schema}_changes`;
}

/** What a change's work decides: `log` appends and commits; without it the transaction rolls back (nothing happened). */
export interface ChangeOutcome<T> {
  result: T;
  log?: { op: string; subject: string; data?: string };
  /** Further entries of the same change (a listen that replaced another logs its end first). */
  before?: Array<{ op: string; subject: string; data?: string }>;
}

/** The database clock at the start of the change, for the work to use. */
export type ChangeWork<T> = (sql: Transaction, now: number) => Promise<ChangeOutcome<T>>;

export class ChangeLog {
  readonly #link: PostgresLink;
  readonly #schema: string;
  readonly #keep: number;

  constructor(link: PostgresLink, schema: string, keep: number) {
    this.#link = link;
    this.#schema = schema;
    this.#keep = keep;
  }

  /**
   * Runs `work` as one change; resolves its result and the number of its last log entry (0 when nothing was logged).
   * `numberFirst` takes the log's row before the work, so such changes run one at a time (test listens check, then
   * write); otherwise the work runs first and racing changes meet at the tables' unique keys (activations: the
   * (method, path) primary key picks the one winner), and only changes that will commit wait for their number.
   */
  change<T>(work: ChangeWork<T>, doing: string, numberFirst = false): Promise<{ result: T; version: number }> {
    const s = this.#schema;
    const number = (count: number): string => `UPDATE ${s}.log_state SET version = version + ${count} RETURNING version`;
    return this.#link.transaction(async (sql) => {
      const clock = await sql(numberFirst ? `${number(0)}, ${s}.now_ms() AS now` : `SELECT ${s}.now_ms() AS now`);
      const outcome = await work(sql, Number(clock.rows[0]?.now));
      if (outcome.log === undefined) return { result: { result: outcome.result, version: 0 }, rollback: true };
      const entries = [...(outcome.before ?? []), outcome.log];
      let version = Number((await sql(number(entries.length))).rows[0]?.version) - entries.length;
      for (const entry of entries) {
        version += 1;
        await sql(`INSERT INTO ${s}.changes (version, op, subject, data) VALUES ($1, $2, $3, $4)`, [version, entry.op, entry.subject, entry.data ?? null]);
      }
      await sql(`DELETE FROM ${s}.changes WHERE version <= $1`, [version - this.#keep]);
      await sql('SELECT pg_notify($1, $2)', [channelOf(s), String(version)]);
      return { result: { result: outcome.result, version } };
    }, doing);
  }

  /**
   * The entry numbered `version` (while the log keeps it) and the entries after it, oldest first, at most `limit`
   * after it: the first shows whether the log still holds what the reader applied under that number.
   */
  async from(version: number, limit: number): Promise<ChangeEntry[]> {
    const found = await this.#link.query(`SELECT version, op, subject, data FROM ${this.#schema}.changes WHERE version >= $1 ORDER BY version LIMIT $2`,
      [version, limit + 1], 'reading the change log');
    return found.rows.map((row) => ({ version: Number(row.version), op: String(row.op), subject: String(row.subject), data: row.data === null ? null : String(row.data) }));
  }
}
