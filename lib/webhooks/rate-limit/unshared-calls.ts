/**
 * The calls this instance let through on its own count while the shared store could not count them, kept per budget
 * until the store answers again and they are added to it: without them the store would take over from the count it
 * held before the outage, and let the limit through once more on top of what every instance let through alone.
 */
import type { RateLimitCharge, RateLimitResult } from '../../core/rate-limits.js';

/** Most budgets kept: one per caller the instance let through alone; past it, new budgets' calls are not added back. */
const MAX_BUDGETS = 100_000;

interface Kept {
  charge: RateLimitCharge;
  calls: number;
  /** `performance.now()` when the window this instance counted them in ends: past it they count no more. */
  endsAt: number;
}

export interface UnsharedBatch {
  charges: RateLimitCharge[];
  calls: number[];
  /** When each budget's window ends here (`performance.now()`). */
  endsAt: number[];
}

export class UnsharedCalls {
  readonly #kept = new Map<string, Kept>();

  /** A call this instance let through alone (`result` is its own count's answer); a refused one spent nothing. */
  add(charges: readonly RateLimitCharge[], result: RateLimitResult, now = performance.now()): void {
    if (!result.allowed) return;
    charges.forEach((charge, index) => {
      const key = `${charge.windowMs}\u0000${charge.budget}`;
      const endsAt = now + (result.resetMs[index] ?? charge.windowMs);
      const kept = this.#kept.get(key);
      if (kept !== undefined && kept.endsAt > now) {
        kept.calls += 1;
        kept.endsAt = Math.max(kept.endsAt, endsAt);
      } else if (kept !== undefined || this.#kept.size < MAX_BUDGETS) {
        this.#kept.set(key, { charge, calls: 1, endsAt });
      }
    });
  }

  /** The calls whose window has not ended, taken out; undefined when there are none. */
  take(now = performance.now()): UnsharedBatch | undefined {
    const batch: UnsharedBatch = { charges: [], calls: [], endsAt: [] };
    for (const kept of this.#kept.values()) {
      if (kept.endsAt <= now) continue;
      batch.charges.push(kept.charge);
      batch.calls.push(kept.calls);
      batch.endsAt.push(kept.endsAt);
    }
    this.#kept.clear();
    return batch.charges.length === 0 ? undefined : batch;
  }

  /** Puts back a batch the store did not take, to be added the next time it answers. */
  restore(batch: UnsharedBatch): void {
    batch.charges.forEach((charge, index) => {
      const key = `${charge.windowMs}\u0000${charge.budget}`;
      const calls = batch.calls[index] ?? 0;
      const kept = this.#kept.get(key);
      if (kept !== undefined) kept.calls += calls;
      else this.#kept.set(key, { charge, calls, endsAt: batch.endsAt[index] ?? 0 });
    });
  }
}
