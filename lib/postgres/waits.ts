/**
 * Waiting webhooks' entries in PostgreSQL, so that every instance knows every wait: one row per wait, its status and
 * resume time apart from its JSON, so a claim is one UPDATE … WHERE status = 'waiting' AND not expired RETURNING
 * (of any number of racing claims, the row lock lets exactly one through). Each instance sweeps expired rows once a
 * second with DELETE … RETURNING over rows it can lock (SKIP LOCKED): each expired wait is removed, and told, by one
 * instance.
 */
import { checkWaitListLimit, tooManyWaiting } from '../webhooks/registry/waits.js';
import type { WaitClaim, WaitEntry, WaitStatus } from '../core/waits.js';
import { ExpiringWaits, type ExpiredBatch } from '../webhooks/registry/shared/wait-expiry.js';
import type { PostgresLink } from './pool.js';

const SWEEP_BATCH = 500;

/** The entry as stored, with the status and resume time its row holds apart. */
function entryOf(row: Record<string, unknown>): WaitEntry {
  const entry = JSON.parse(String(row.entry)) as WaitEntry;
  entry.status = String(row.status) as WaitStatus;
  if (row.resumed_at !== null && row.resumed_at !== undefined) entry.resumedAt = Number(row.resumed_at);
  return entry;
}

export class PostgresWaits extends ExpiringWaits {
  readonly #link: PostgresLink;
  readonly #schema: string;
  readonly #maxWaiting: number;
  readonly #now: () => number;

  constructor(link: PostgresLink, schema: string, maxWaiting: number, now: () => number) {
    super();
    this.#link = link;
    this.#schema = schema;
    this.#maxWaiting = maxWaiting;
    this.#now = now;
  }

  /** Stores the entry when it is new (within maxWaiting), or replaces it when its status is `expect` (or no `expect`). */
  async put(entry: WaitEntry, expect?: WaitStatus): Promise<boolean> {
    const { status, resumedAt, ...rest } = entry;
    const found = await this.#link.query(`SELECT ${this.#schema}.put_wait($1, $2, $3, $4, $5, $6, $7, $8) AS stored`, [
      entry.waitId, status, JSON.stringify(rest), resumedAt ?? null, Math.round(entry.expiresAt), expect ?? null, this.#maxWaiting, Math.round(this.#now()),
    ], 'storing a wait');
    const stored = Number(found.rows[0]?.stored);
    if (stored === -1) throw tooManyWaiting(this.#maxWaiting);
    this.start();
    return stored === 1;
  }

  async get(waitId: string): Promise<WaitEntry | undefined> {
    const found = await this.#link.query(`SELECT status, entry, resumed_at FROM ${this.#schema}.waits WHERE wait_id = $1`, [waitId], 'reading a wait');
    const row = found.rows[0];
    if (row === undefined) return undefined;
    const entry = entryOf(row);
    return entry.expiresAt <= this.#now() ? undefined : entry;
  }

  async claim(waitId: string, resumedAt: number): Promise<WaitClaim> {
    const s = this.#schema;
    // An expired wait stays `waiting` until the sweep removes it, so the sweep still tells its listeners of it.
    const claimed = await this.#link.query(`UPDATE ${s}.waits SET status = 'running', resumed_at = $2
      WHERE wait_id = $1 AND status = 'waiting' AND expires_at > $3 RETURNING status, entry, resumed_at`,
    [waitId, resumedAt, Math.round(this.#now())], 'claiming a wait');
    if (claimed.rows[0] !== undefined) return { claimed: true, entry: entryOf(claimed.rows[0]) };
    // Not ours: read it as the claim that won left it (a statement of its own sees that claim committed).
    const entry = await this.get(waitId);
    return { claimed: false, entry };
  }

  /** The `waiting` entries not yet expired, soonest expiry first, at most `options.limit`. */
  async listWaiting(options: { limit?: number } | undefined): Promise<WaitEntry[]> {
    const limit = checkWaitListLimit(options);
    const found = await this.#link.query(`SELECT status, entry, resumed_at FROM ${this.#schema}.waits WHERE status = 'waiting' AND expires_at > $1
      ORDER BY expires_at LIMIT $2`, [Math.round(this.#now()), limit], 'listing the waiting runs');
    return found.rows.map(entryOf);
  }

  /** One batch of the expired waits, each locked by the sweep that removes it (SKIP LOCKED): one instance tells each. */
  protected override async removeExpired(): Promise<ExpiredBatch> {
    const s = this.#schema;
    const removed = await this.#link.query(`DELETE FROM ${s}.waits WHERE wait_id IN (SELECT wait_id FROM ${s}.waits WHERE expires_at <= $1
      ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING status, entry, resumed_at`, [Math.round(this.#now()), SWEEP_BATCH], 'removing expired waits');
    return {
      waiting: removed.rows.filter((row) => row.status === 'waiting').map(entryOf),
      full: removed.rows.length >= SWEEP_BATCH,
      anyLeft: async () => {
        const left = await this.#link.query(`SELECT EXISTS (SELECT 1 FROM ${s}.waits) AS any`, [], 'removing expired waits');
        return left.rows[0]?.any === true;
      },
    };
  }
}
