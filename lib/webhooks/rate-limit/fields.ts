/**
 * What a limited call is told, as draft-ietf-httpapi-ratelimit-headers (revision 11) has it: `RateLimit-Policy`, a
 * Structured Fields List of the address's policies, each a String (its name) with `q` (calls per window) and `w` (the
 * window in whole seconds); `RateLimit`, the same policies with `r` (calls still let through in the current window)
 * and `t` (whole seconds until that window ends). No partition key (`pk`) is sent: it would be the digest of a
 * caller's API key or address. A refusal adds `Retry-After`: whole seconds, at least 1, no earlier than the end of
 * the latest window that refused.
 */
import { WebhookError } from '../../core/errors.js';
import { describeRateLimit, windowSeconds, type RateLimitResult, type ResolvedRateLimitPolicy } from '../../core/rate-limits.js';

/** Whole seconds, rounded up: a client that waits this long finds the window over. */
const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** `"ip-60s";q=10;w=60`, comma-separated: the same for every call of an address. */
export function policyField(policies: readonly ResolvedRateLimitPolicy[]): string {
  return policies.map((policy) => `"${policy.name}";q=${policy.limit};w=${windowSeconds(policy.windowMs)}`).join(', ');
}

/** `"ip-60s";r=3;t=42`, comma-separated: where this call left each budget. */
export function limitField(policies: readonly ResolvedRateLimitPolicy[], result: RateLimitResult): string {
  return policies.map((policy, index) => `"${policy.name}";r=${result.remaining[index] ?? 0};t=${seconds(result.resetMs[index] ?? 1)}`).join(', ');
}

/** The 429 of a refused call: the policy that refused it in words (never the caller's key), and when to come back. */
export function rateLimited(policies: readonly ResolvedRateLimitPolicy[], result: RateLimitResult, policy: string, limits: string): WebhookError {
  let retry = 1;
  let refusing = policies[0] as ResolvedRateLimitPolicy;
  policies.forEach((candidate, index) => {
    const wait = seconds(result.resetMs[index] ?? 1);
    if (result.remaining[index] === 0 && wait >= retry) {
      retry = wait;
      refusing = candidate;
    }
  });
  return new WebhookError('RATE_LIMITED', `Too many calls: this webhook takes ${describeRateLimit(refusing)}. Try again in ${retry} s.`, {
      hint: 'Wait the seconds Retry-After gives before calling again; RateLimit-Policy says the limits, RateLimit what is left of them.',
      headers: { 'retry-after': String(retry), 'ratelimit-policy': policy, ratelimit: limits },
    });
}
