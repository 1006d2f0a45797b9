/**
 * Waiting webhooks' entries in PostgreSQL, so that every instance knows every wait: one row per wait, its status and
 * resume time apart from its JSON, so a claim is one UPDATE … WHERE status = 'waiting' RETURNING (of any number of
 * racing claims, the row lock lets exactly one through). Each instance sweeps expired rows once a second with
 * DELETE … RETURNING over rows it can lock (SKIP LOCKED): each expired wait is removed, and told, by one instance.
 */
import { checkWaitListLimit, tooManyWaiting } from '../webhooks/registry/waits.js';
import type { WaitClaim, WaitEntry, WaitExpiredListener, WaitStatus } from '../core/waits.js';
import type { PostgresLink } from './pool.js';

const SWEEP_MS = 1000;
const SWEEP_BATCH = 500;

/** The entry as stored, with the status and resume time its row holds apart. */
function entryOf(row: Record<string, unknown>): WaitEntry {
  const entry = JSON.parse(String(row.entry)) as WaitEntry;
  entry.status = String(row.status) as WaitStatus;
  if (row.resumed_at !== null && row.resumed_at !== undefined) entry.resumedAt = Number(row.resumed_at);
  return entry;
}

export class PostgresWaits {
  readonly #link: PostgresLink;
  readonly #schema: string;
  readonly #maxWaiting: number;
  readonly #now: () => number;
  readonly #listeners = new Set<WaitExpiredListener>();
  #onError: (error: unknown) => void = () => undefined;
  #timer: NodeJS.Timeout | undefined;
  #sweeping = false;

  constructor(link: PostgresLink, schema: string, maxWaiting: number, now: () => number) {
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
    const claimed = await this.#link.query(`UPDATE ${s}.waits SET status = 'running', resumed_at = $2 WHERE wait_id = $1 AND status = 'waiting'
      RETURNING status, entry, resumed_at`, [waitId, resumedAt], 'claiming a wait');
    if (claimed.rows[0] !== undefined) {
      const entry = entryOf(claimed.rows[0]);
      return entry.expiresAt <= this.#now() ? { claimed: false, entry: undefined } : { claimed: true, entry };
    }
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

  /** Listens for expired waits; the sweep runs once a second while anyone listens. */
  onExpired(listener: WaitExpiredListener, onError: (error: unknown) => void): () => void {
    this.#listeners.add(listener);
    this.#onError = onError;
    this.start();
    return () => { this.#listeners.delete(listener); };
  }

  /** Sweeps once a second while waits are stored or anyone listens (a sweep that finds none stops it otherwise). */
  start(): void {
    this.#timer ??= setInterval(() => void this.sweep(), SWEEP_MS).unref();
  }

  /** Removes the waits that expired (every one, in batches), telling the listeners of those that were waiting. */
  async sweep(): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    const s = this.#schema;
    try {
      for (;;) {
        const now = Math.round(this.#now());
        const removed = await this.#link.query(`DELETE FROM ${s}.waits WHERE wait_id IN (SELECT wait_id FROM ${s}.waits WHERE expires_at <= $1
          ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING status, entry, resumed_at`, [now, SWEEP_BATCH], 'removing expired waits');
        for (const row of removed.rows) if (row.status === 'waiting') this.#tell(entryOf(row));
        if (removed.rows.length >= SWEEP_BATCH) continue;
        if (this.#listeners.size === 0) {
          const left = await this.#link.query(`SELECT EXISTS (SELECT 1 FROM ${s}.waits) AS any`, [], 'removing expired waits');
          if (left.rows[0]?.any !== true) this.close();
        }
        return;
      }
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#sweeping = false;
    }
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tell(entry: WaitEntry): void {
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}
