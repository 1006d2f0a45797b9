/**
 * The middleware's `rateLimit` option, checked once at the factory, and the stage's settings made from it: the default
 * policies, which headers go out, what happens when the shared store fails, how caller addresses are grouped, and the
 * bound on caller budgets.
 */
import { fail, group } from '../../core/option-checks.js';
import { resolveRateLimits, type RateLimitPolicy, type ResolvedRateLimitPolicy } from '../../core/rate-limits.js';
import type { WebhookLogger } from '../../core/logger.js';
import type { WebhookRegistry } from '../registry/contract.js';
import type { RateLimitSettings } from './index.js';
import { RateLimitStore } from './store.js';

export interface RateLimitOptions {
  /** The rate limit of every production address whose workflow's `settings.rateLimit` gives none (`false` there opts out). */
  default?: RateLimitPolicy | readonly RateLimitPolicy[];
  /** `'always'` (default): `RateLimit-Policy` and `RateLimit` on every answer of a limited address; `'refused'`: on 429s only. */
  headers?: 'always' | 'refused';
  /**
   * When the registry's shared store (Redis) cannot count a call: `'local'` (default) counts it in this process until
   * the store answers again (each instance then lets the limit through); `'refuse'` answers 503 `REGISTRY_UNAVAILABLE`.
   */
  storeFailure?: 'local' | 'refuse';
  /** IPv6 callers of `key: 'ip'` count by this many leading bits of their address (one subscriber holds a /56 or /64). Default 56. */
  ipv6Prefix?: number;
  /**
   * Per address, policy and window, at most this many callers (addresses or header values) get budgets of their own;
   * callers beyond share one, so a flood of invented keys neither grows the store without end nor escapes the limit. Default 10 000.
   */
  maxKeys?: number;
}

export interface ResolvedRateLimitOptions {
  default: readonly ResolvedRateLimitPolicy[] | undefined;
  headers: 'always' | 'refused';
  storeFailure: NonNullable<RateLimitOptions['storeFailure']>;
  ipv6Prefix: number;
  maxKeys: number;
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) fail(name, allowed.map((one) => `"${one}"`).join(' or '), value);
  return value as T;
}

function wholeNumber(name: string, value: unknown, least: number, most: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least || value > most) fail(name, `a whole number from ${least} to ${most}`, value);
  return value;
}

export function resolveRateLimitOptions(value: RateLimitOptions | undefined): Readonly<ResolvedRateLimitOptions> {
  const given = group('rateLimit', value, ['default', 'headers', 'storeFailure', 'ipv6Prefix', 'maxKeys']);
  const defaults = resolveRateLimits(given.default, 'rateLimit.default', fail, false);
  return Object.freeze({
    default: defaults === false ? undefined : defaults,
    headers: oneOf('rateLimit.headers', given.headers, ['always', 'refused'], 'always'),
    storeFailure: oneOf('rateLimit.storeFailure', given.storeFailure, ['local', 'refuse'], 'local'),
    ipv6Prefix: wholeNumber('rateLimit.ipv6Prefix', given.ipv6Prefix, 1, 128, 56),
    maxKeys: wholeNumber('rateLimit.maxKeys', given.maxKeys, 1, 10_000_000, 10_000),
  });
}

export function rateLimitSettings(options: ResolvedRateLimitOptions, proxyHops: number, registry: WebhookRegistry, logger: WebhookLogger): RateLimitSettings {
  return {
    defaults: options.default, headers: options.headers, maxKeys: options.maxKeys, ipv6Prefix: options.ipv6Prefix, proxyHops,
    store: new RateLimitStore(registry, options.storeFailure, logger), plans: new WeakMap(), logger,
  };
}
