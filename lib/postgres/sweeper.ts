/**
 * Removes what expired, so no user cron job is needed: every instance tries now and then, and one at a time sweeps
 * (the others find the advisory lock taken and skip). One class for every sweep of the library's tables; the
 * registry's (test listens, relayed test calls, message ids, rate limit budgets, every 10 s) is defined here, queue
 * mode's beside its store. Waits are swept by the waits themselves (their expiry is told to listeners); the change log
 * and the calls are trimmed as they grow.
 */
import type { PostgresLink, Transaction } from './pool.js';

export interface SweepPlan {
  /** The advisory lock's name: one sweep of this kind at a time, over every instance. */
  lock: string;
  everyMs: number;
  /** Completes the error message: "… while <doing>". */
  doing: string;
  /** Removes the expired rows, inside the lock's transaction; resolves how many went. */
  remove(sql: Transaction): Promise<number>;
}

export class LockedSweep {
  readonly #link: PostgresLink;
  readonly #plan: SweepPlan;
  readonly #report: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(link: PostgresLink, plan: SweepPlan, report: (error: unknown) => void) {
    this.#link = link;
    this.#plan = plan;
    this.#report = report;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.sweep().catch(this.#report), this.#plan.everyMs).unref();
  }

  /** One sweep, unless another instance is sweeping: resolves the rows removed, or undefined when it skipped. */
  sweep(): Promise<number | undefined> {
    return this.#link.transaction(async (sql) => {
      const lock = await sql('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS mine', [this.#plan.lock]);
      if (lock.rows[0]?.mine !== true) return { result: undefined };
      return { result: await this.#plan.remove(sql) };
    }, this.#plan.doing);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** A listen or budget row outlives its time by this much, so a reader that is a little late still finds it whole. */
const GRACE_MS = 60_000;

/** The registry's sweep, by the database's clock. */
export function registrySweep(link: PostgresLink, schema: string, report: (error: unknown) => void): LockedSweep {
  return new LockedSweep(link, {
    lock: `workflow-webhooks:${schema}:sweep`, everyMs: 10_000, doing: 'removing expired rows',
    async remove(sql) {
      const now = await sql(`SELECT ${schema}.now_ms() AS now`);
      const before = Number(now.rows[0]?.now) - GRACE_MS;
      let removed = 0;
      for (const [table, column] of [['listens', 'expires_at'], ['relays', 'expires_at'], ['message_ids', 'expires_at'], ['rate_budgets', 'window_ends']]) {
        removed += (await sql(`DELETE FROM ${schema}.${table as string} WHERE ${column as string} < $1`, [before])).rowCount ?? 0;
      }
      return removed;
    },
  }, report);
}
