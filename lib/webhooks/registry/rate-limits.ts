/**
 * Rate limit budgets counted in this process: the memory registry's, and the middleware's own for a registry that
 * counts none (or while a shared store cannot be reached). A budget is a fixed window opened by its first call:
 * `limit` calls, then refusals until the window ends. Bounded, whatever callers send: at most `maxKeys` new caller
 * budgets per scope and window, and `maxBudgets` in all; a new caller past either bound shares its scope's one
 * overflow budget (existing budgets are never evicted, so a flood of invented keys cannot reset anyone's count).
 * Expired budgets are dropped from the oldest end as calls arrive: budgets of one window length expire in the order
 * they were opened, so each length keeps its own table (a budget recorded for a shared store may end sooner than
 * one opened before it: it is never counted once ended, and dropped with its elders at the latest).
 */
import type { RateLimitCharge, RateLimitResult } from '../../core/rate-limits.js';

interface Budget {
  count: number;
  /** `performance.now()` when its window ends. */
  endsAt: number;
}

/** The budget callers past a scope's bound share. */
const overflowOf = (scope: string): string => `${scope}:overflow`;

export class InProcessRateLimits {
  /** Window length → budgets, oldest first (so soonest to end first). */
  readonly #budgets = new Map<number, Map<string, Budget>>();
  /** Window length → how many caller budgets each scope opened in its current window. */
  readonly #opened = new Map<number, Map<string, Budget>>();
  readonly #maxBudgets: number;
  #size = 0;

  constructor(maxBudgets = 100_000) {
    this.#maxBudgets = maxBudgets;
  }

  /** Budgets held now (expired ones not yet dropped included). */
  get size(): number {
    return this.#size;
  }

  /** Charges every budget when each has room, none otherwise (one step: nothing else runs in between). */
  charge(charges: readonly RateLimitCharge[], now = performance.now()): RateLimitResult {
    const keys: string[] = [];
    const counts: number[] = [];
    let allowed = true;
    for (const charge of charges) {
      const table = this.#table(this.#budgets, charge.windowMs, now);
      const key = this.#keyOf(table, charge, now);
      const count = live(table.get(key), now)?.count ?? 0;
      keys.push(key);
      counts.push(count);
      if (count >= charge.limit) allowed = false;
    }
    const remaining: number[] = [];
    const resetMs: number[] = [];
    charges.forEach((charge, index) => {
      const table = this.#budgets.get(charge.windowMs) as Map<string, Budget>;
      const key = keys[index] as string;
      let budget = live(table.get(key), now);
      if (allowed) budget = budget === undefined ? this.#open(table, key, charge, now) : (budget.count += 1, budget);
      remaining.push(Math.max(0, charge.limit - (budget?.count ?? 0)));
      resetMs.push(budget === undefined ? charge.windowMs : Math.max(1, Math.round(budget.endsAt - now)));
    });
    return { allowed, remaining, resetMs };
  }

  /**
   * Counts a call that a shared store let through, without checking room, in windows that end where the store's do
   * (`resetMs`, one per charge): so that once this process must count alone (the store away), it starts from the calls
   * it already let through in those windows, not from zero.
   */
  record(charges: readonly RateLimitCharge[], resetMs: readonly number[], now = performance.now()): void {
    charges.forEach((charge, index) => {
      const table = this.#table(this.#budgets, charge.windowMs, now);
      const key = this.#keyOf(table, charge, now);
      const budget = live(table.get(key), now);
      if (budget !== undefined) budget.count += 1;
      else this.#open(table, key, charge, now).endsAt = now + Math.min(charge.windowMs, resetMs[index] ?? charge.windowMs);
    });
  }

  /** The budget a call spends from: its own, or its scope's overflow budget when it has none and may open none. */
  #keyOf(table: Map<string, Budget>, charge: RateLimitCharge, now: number): string {
    if (live(table.get(charge.budget), now) === undefined && charge.budget !== charge.scope && this.#full(charge, now)) return overflowOf(charge.scope);
    return charge.budget;
  }

  /** Whether a new caller of this scope must share the overflow budget: its scope or the whole table is at its bound. */
  #full(charge: RateLimitCharge, now: number): boolean {
    const opened = live(this.#table(this.#opened, charge.windowMs, now).get(charge.scope), now)?.count ?? 0;
    return opened >= charge.maxKeys || this.#size >= this.#maxBudgets;
  }

  #open(table: Map<string, Budget>, key: string, charge: RateLimitCharge, now: number): Budget {
    if (table.delete(key)) this.#size -= 1;
    const budget = { count: 1, endsAt: now + charge.windowMs };
    table.set(key, budget);
    this.#size += 1;
    if (key !== charge.budget || charge.budget === charge.scope) return budget;
    const scopes = this.#opened.get(charge.windowMs) as Map<string, Budget>;
    const opened = live(scopes.get(charge.scope), now);
    if (opened !== undefined) opened.count += 1;
    else {
      scopes.delete(charge.scope);
      scopes.set(charge.scope, { count: 1, endsAt: now + charge.windowMs });
    }
    return budget;
  }

  /** The table of one window length, its expired entries dropped from the front. */
  #table(tables: Map<number, Map<string, Budget>>, windowMs: number, now: number): Map<string, Budget> {
    let table = tables.get(windowMs);
    if (table === undefined) {
      table = new Map();
      tables.set(windowMs, table);
      return table;
    }
    for (const [key, entry] of table) {
      if (entry.endsAt > now) break;
      table.delete(key);
      if (tables === this.#budgets) this.#size -= 1;
    }
    return table;
  }
}

function live(budget: Budget | undefined, now: number): Budget | undefined {
  return budget !== undefined && budget.endsAt > now ? budget : undefined;
}
