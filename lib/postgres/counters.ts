/**
 * What the request path counts in PostgreSQL for every instance: signed webhooks' message ids (one INSERT … ON
 * CONFLICT per id: of two instances receiving one id at once, exactly one inserts it) and rate limit budgets (one
 * statement per call, `charge_rate_limits`, which checks every budget of the call and charges all or none, with the
 * database's clock measuring every window). Ids reach the database as digests only. Calls let through while the
 * database could not count them are added to their budgets once it can (`addRateLimitCalls`), unchecked.
 */
import type { RateLimitCharge, RateLimitResult } from '../core/rate-limits.js';
import { digestOf, keyPart } from '../webhooks/registry/shared/digests.js';
import type { PostgresLink } from './pool.js';

export async function rememberMessageId(link: PostgresLink, schema: string, key: string, ttlMs: number): Promise<boolean> {
  const s = schema;
  // A row whose time passed counts as absent: the sweep may not have removed it yet.
  const stored = await link.query(`INSERT INTO ${s}.message_ids (digest, expires_at) VALUES ($1, ${s}.now_ms() + $2)
    ON CONFLICT (digest) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE ${s}.message_ids.expires_at <= ${s}.now_ms()
    RETURNING digest`, [digestOf(key), Math.max(1, Math.ceil(ttlMs))], 'checking a signed message id');
  return stored.rows.length === 1;
}

export async function chargeRateLimits(link: PostgresLink, schema: string, charges: readonly RateLimitCharge[]): Promise<RateLimitResult> {
  const found = await link.query(`SELECT allowed, remaining, reset_ms FROM ${schema}.charge_rate_limits($1, $2, $3, $4, $5, $6)`, [
    charges.map((charge) => keyPart(charge.budget)),
    charges.map((charge) => keyPart(charge.scope)),
    charges.map((charge) => charge.limit),
    charges.map((charge) => charge.windowMs),
    charges.map((charge) => charge.maxKeys),
    charges.map((charge) => charge.budget !== charge.scope),
  ], 'counting a rate-limited call');
  const row = found.rows[0] ?? {};
  return {
    allowed: row.allowed === true,
    remaining: (row.remaining as unknown[] ?? []).map(Number),
    resetMs: (row.reset_ms as unknown[] ?? []).map(Number),
  };
}

/**
 * Adds calls to budgets without checking room, in one statement: a budget whose window ended (or that has none) opens
 * a new window holding them. Rows are taken in one order, as charge_rate_limits takes them, so the two never deadlock.
 */
export async function addRateLimitCalls(link: PostgresLink, schema: string, charges: readonly RateLimitCharge[], calls: readonly number[]): Promise<void> {
  const s = schema;
  await link.query(`INSERT INTO ${s}.rate_budgets AS b (budget, calls, window_ends)
    SELECT k, sum(n)::integer, ${s}.now_ms() + max(w) FROM unnest($1::text[], $2::integer[], $3::bigint[]) AS t(k, n, w) GROUP BY k ORDER BY k
    ON CONFLICT (budget) DO UPDATE SET calls = CASE WHEN b.window_ends > ${s}.now_ms() THEN b.calls + EXCLUDED.calls ELSE EXCLUDED.calls END,
      window_ends = CASE WHEN b.window_ends > ${s}.now_ms() THEN b.window_ends ELSE EXCLUDED.window_ends END`, [
    charges.map((charge) => keyPart(charge.budget)),
    charges.map((_, index) => calls[index] ?? 0),
    charges.map((charge) => charge.windowMs),
  ], 'adding the calls counted without PostgreSQL');
}
