/**
 * Removes what expired from the tables that expire by time (test listens, relayed test calls, message ids, rate
 * limit budgets), so no user cron job is needed: every instance tries every 10 s, and one at a time sweeps (the others
 * find the advisory lock taken and skip). Waits are swept by the waits themselves (their expiry is told to listeners);
 * the change log and the calls are trimmed as they grow.
 */
import type { PostgresLink } from './pool.js';

const SWEEP_MS = 10_000;
/** A listen or budget row outlives its time by this much, so a reader that is a little late still finds it whole. */
const GRACE_MS = 60_000;

export class Sweeper {
  readonly #link: PostgresLink;
  readonly #schema: string;
  readonly #report: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(link: PostgresLink, schema: string, report: (error: unknown) => void) {
    this.#link = link;
    this.#schema = schema;
    this.#report = report;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.sweep().catch(this.#report), SWEEP_MS).unref();
  }

  /** One sweep, unless another instance is sweeping: resolves the rows removed, or undefined when it skipped. */
  sweep(): Promise<number | undefined> {
    const s = this.#schema;
    return this.#link.transaction(async (sql) => {
      const lock = await sql('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS mine, ' + `${s}.now_ms() AS now`, [`workflow-webhooks:${s}:sweep`]);
      if (lock.rows[0]?.mine !== true) return { result: undefined };
      const before = Number(lock.rows[0].now) - GRACE_MS;
      let removed = 0;
      for (const [table, column] of [['listens', 'expires_at'], ['relays', 'expires_at'], ['message_ids', 'expires_at'], ['rate_budgets', 'window_ends']]) {
        removed += (await sql(`DELETE FROM ${s}.${table as string} WHERE ${column as string} < $1`, [before])).rowCount ?? 0;
      }
      return { result: removed };
    }, 'removing expired rows');
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
