/**
 * Removes queue mode's rows that expired (claims, refusal marks and claims of late jobs, replies nobody read, files
 * whose job never came back for them), so no user cron job is needed: every web queue and worker tries every 30 s, and
 * one at a time sweeps (lib/postgres/sweeper.ts). Each table's expiry is indexed: a sweep is one range delete per table.
 */
import type { PostgresLink } from '../../postgres/pool.js';
import { LockedSweep } from '../../postgres/sweeper.js';

const TABLES = ['queue_claims', 'queue_refused', 'queue_replies', 'queue_files', 'queue_file_chunks'];

/** Queue mode's sweep, by the callers' clock (the one its rows' expiry was written with). */
export function queueSweep(link: PostgresLink, schema: string, clock: () => number, report: (error: unknown) => void): LockedSweep {
  return new LockedSweep(link, {
    lock: `workflow-webhooks:${schema}:queue-sweep`, everyMs: 30_000, doing: 'removing expired queue rows',
    async remove(sql) {
      const now = clock();
      let removed = 0;
      for (const table of TABLES) removed += (await sql(`DELETE FROM ${schema}.${table} WHERE expires_at <= $1`, [now])).rowCount ?? 0;
      return removed;
    },
  }, report);
}
