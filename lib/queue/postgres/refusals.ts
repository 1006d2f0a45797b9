/**
 * The marks of refused calls on PostgreSQL, and a worker's claim on a late job: one row per store attempt, written by
 * whichever side comes first. A web instance that refuses a call whose job is still on its way marks it refused; a
 * worker that takes a job after its caller's deadline claims it (`refused` false) before running it. Both write with
 * `INSERT … ON CONFLICT`, which waits for a racing insert of the same row to commit, so a worker never runs a job
 * whose refusal reached the database first, even uncommitted. The web side's marks go out in one statement for all
 * that are waiting: a database that froze and thawed gets every mark refused meanwhile at once, one round trip after
 * it thaws, ahead of the jobs' workers (each needs a round trip to take its job and one more to claim it). A worker's
 * claims go the same way: those made while one is on its way go out together in the next statement, so a backlog of
 * late jobs (every job taken a second after its call) costs the database one statement per batch, not one per job.
 * Both write their rows in the order of the store ids, so a batch of marks and a batch of claims over the same rows
 * wait for each other and never deadlock.
 */
import { nextMarkPause } from '../store/mark-pauses.js';

export type Run = (sql: string, values: unknown[], doing: string) => Promise<{ rows: Array<Record<string, unknown>> }>;
/** A connection kept warm for the marks (the reply listener's), when there is one now. */
export type Warm = () => ((sql: string, values: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>) | undefined;

/** How long a worker's claim on a late job stays, so a refusal that comes after it finds it. */
const CLAIM_MS = 24 * 3600_000;

export class RefusalMarks {
  readonly #run: Run;
  readonly #warm: Warm;
  readonly #schema: string;
  readonly #scope: string;
  readonly #clock: () => number;
  readonly #report: (error: unknown) => void;
  #waiting: Array<{ storeId: string; expiresAt: number }> = [];
  #sending = false;
  #claims: Array<{ storeId: string; settle: (refused: boolean) => void; fail: (error: unknown) => void }> = [];
  #claiming = false;
  #stopped = false;
  /** The pause after the last failed attempt; 0 while the marks are taken. */
  #pauseMs = 0;

  constructor(run: Run, warm: Warm, schema: string, scope: string, clock: () => number, report: (error: unknown) => void) {
    this.#run = run;
    this.#warm = warm;
    this.#schema = schema;
    this.#scope = scope;
    this.#clock = clock;
    this.#report = report;
  }

  /**
   * Marks a store attempt refused; sent at once, or with the next statement while one is on its way, and again after a
   * pause while the database does not take it. Never rejects.
   */
  mark(storeId: string, ttlMs: number): void {
    if (this.#stopped) return;
    this.#waiting.push({ storeId, expiresAt: this.#clock() + ttlMs });
    if (!this.#sending) void this.#send();
  }

  /** A worker's claim on a late job: true when its caller was refused (the job must not run), false when it is the worker's. */
  claim(storeId: string): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.#claims.push({ storeId, settle, fail });
      if (!this.#claiming) void this.#sendClaims();
    });
  }

  async #sendClaims(): Promise<void> {
    this.#claiming = true;
    while (this.#claims.length > 0) {
      const batch = this.#claims;
      this.#claims = [];
      const now = this.#clock();
      // One row per store id (a statement may not write a row twice), in order (see above).
      const storeIds = [...new Set(batch.map((claim) => claim.storeId))].sort();
      try {
        // A row that expired counts as none: the claim takes its place.
        const found = await this.#run(`INSERT INTO ${this.#schema}.queue_refused AS mark
          SELECT $1, store_id, $3, false FROM unnest($2::text[]) AS claims (store_id) ORDER BY store_id
          ON CONFLICT (scope, store_id) DO UPDATE SET refused = mark.refused AND mark.expires_at > $4,
          expires_at = CASE WHEN mark.expires_at > $4 THEN mark.expires_at ELSE EXCLUDED.expires_at END RETURNING store_id, refused`,
        [this.#scope, storeIds, now + CLAIM_MS, now], 'reading a refusal mark');
        const refused = new Set(found.rows.filter((row) => row.refused === true).map((row) => row.store_id));
        for (const claim of batch) claim.settle(refused.has(claim.storeId));
      } catch (error) {
        for (const claim of batch) claim.fail(error);
      }
    }
    this.#claiming = false;
  }

  async #send(): Promise<void> {
    this.#sending = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      // A job a worker claimed first stays its: the refusal comes too late for it, and is not written over it (a row
      // that expired is).
      const sql = `INSERT INTO ${this.#schema}.queue_refused AS mark SELECT $1, store_id, max(expires_at), true
        FROM unnest($2::text[], $3::bigint[]) AS marks (store_id, expires_at) GROUP BY store_id ORDER BY store_id
        ON CONFLICT (scope, store_id) DO UPDATE SET refused = true, expires_at = EXCLUDED.expires_at WHERE mark.expires_at <= $4`;
      const values = [this.#scope, batch.map((mark) => mark.storeId), batch.map((mark) => mark.expiresAt), this.#clock()];
      // On the warm connection: a connection of the pool may have to be opened first, which takes round trips that
      // the jobs' workers, already connected, do not wait for.
      const warm = this.#warm();
      const written = await (warm === undefined ? this.#run(sql, values, 'marking a refused call') : warm(sql, values)).then(() => true, (error: unknown) => {
        // Told once for a streak of failures, not at every attempt.
        if (this.#pauseMs === 0) this.#report(error);
        return false;
      });
      if (!written) {
        // A lost mark would let a job the database kept run although its caller was refused: kept until written, or
        // until it would have expired, with the marks refused meanwhile.
        const now = this.#clock();
        this.#waiting = [...batch.filter((mark) => mark.expiresAt > now), ...this.#waiting];
        this.#pauseMs = nextMarkPause(this.#pauseMs);
        await new Promise((resolve) => { setTimeout(resolve, this.#pauseMs).unref(); });
        if (this.#stopped) break;
      } else {
        this.#pauseMs = 0;
      }
    }
    this.#sending = false;
  }

  /** Stops writing the marks still waiting (the link is closing). */
  stop(): void {
    this.#stopped = true;
  }
}
