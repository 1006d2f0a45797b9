/**
 * Removes queue mode's rows that expired (claims, refusal marks, replies nobody read, files whose job never came back
 * for them), so no user cron job is needed: every web queue and worker tries every 30 s, and one at a time sweeps (the
 * others find the advisory lock taken and skip). Each table's expiry is indexed: a sweep is one range delete per table.
 */
import type { PostgresLink } from '../../postgres/pool.js';

const SWEEP_MS = 30_000;
const TABLES = ['queue_claims', 'queue_refused', 'queue_replies', 'queue_files', 'queue_file_chunks'];

export class QueueSweeper {
  readonly #link: PostgresLink;
  readonly #schema: string;
  readonly #clock: () => number;
  readonly #report: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(link: PostgresLink, schema: string, clock: () => number, report: (error: unknown) => void) {
    this.#link = link;
    this.#schema = schema;
    this.#clock = clock;
    this.#report = report;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.sweep().catch(this.#report), SWEEP_MS).unref();
  }

  /** One sweep, unless another process is sweeping: resolves the rows removed, or undefined when it skipped. */
  sweep(): Promise<number | undefined> {
    const s = this.#schema;
    const now = this.#clock();
    return this.#link.transaction(async (sql) => {
      const lock = await sql('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS mine', [`workflow-webhooks:${s}:queue-sweep`]);
      if (lock.rows[0]?.mine !== true) return { result: undefined };
      let removed = 0;
      for (const table of TABLES) removed += (await sql(`DELETE FROM ${s}.${table} WHERE expires_at <= $1`, [now])).rowCount ?? 0;
      return { result: removed };
    }, 'removing expired queue rows');
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
