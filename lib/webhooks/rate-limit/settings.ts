/**
 * The middleware's `rateLimit` option, checked once at the factory, and the stage's settings made from it: the default
 * policies, which headers go out, what happens when the shared store fails, how caller addresses are grouped, the
 * bound on caller budgets, how many calls may wait at once for the shared store to count them, and the key the
 * callers' digests are made under.
 */
import { createHmac } from 'node:crypto';
import { fail, group } from '../../core/option-checks.js';
import { resolveRateLimits, type RateLimitPolicy, type ResolvedRateLimitPolicy } from '../../core/rate-limits.js';
import type { WebhookLogger } from '../../core/logger.js';
import type { WebhookRegistry } from '../registry/contract.js';
import { MemoryWebhookRegistry } from '../registry/memory-registry.js';
import type { RateLimitSettings } from './index.js';
import { RateLimitStore } from './store.js';
import { digest, keyedDigest } from './caller-key.js';

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
  /**
   * Calls of this instance waiting at once for the registry's shared store to count them; one more is refused 503
   * `REGISTRY_UNAVAILABLE` with `Retry-After: 1` at once, instead of waiting past the store's deadline. Default 1000.
   */
  maxPending?: number;
  /**
   * The key the callers' budget names are digested under (HMAC-SHA-256) before they reach the store: at least 32
   * bytes, the same on every instance (instances with different keys count one caller apart). Default: a key derived
   * from `waitingSecret` when it is set; without either, the random key the registry's store keeps for the deployment
   * (Redis, PostgreSQL: `digestKey()`); with none of them, the digests are unkeyed SHA-256, which a reader of the store
   * can match against every IPv4 address in seconds (docs/rate-limits.md).
   */
  digestKey?: string | Buffer;
}

export interface ResolvedRateLimitOptions {
  default: readonly ResolvedRateLimitPolicy[] | undefined;
  headers: 'always' | 'refused';
  storeFailure: NonNullable<RateLimitOptions['storeFailure']>;
  ipv6Prefix: number;
  maxKeys: number;
  maxPending: number;
  /** Undefined: no key configured, digests unkeyed. */
  digestKey: Buffer | undefined;
}

/** Tells the derived digest key from every other use of the waiting secret (resume signatures). */
const DIGEST_KEY_LABEL = 'workflow-webhooks rate-limit digest key v1';

/** `rateLimit.digestKey` checked, else the key derived from the waiting addresses' secret, else undefined. */
function digestKeyOf(value: unknown, waitingSecret: Buffer | undefined): Buffer | undefined {
  if (value === undefined) return waitingSecret === undefined ? undefined : createHmac('sha256', waitingSecret).update(DIGEST_KEY_LABEL).digest();
  const key = typeof value === 'string' ? Buffer.from(value) : Buffer.isBuffer(value) ? Buffer.from(value) : undefined;
  if (key === undefined || key.length < 32) {
    fail('rateLimit.digestKey', 'a string or Buffer of at least 32 bytes, the same on every instance', typeof value === 'string' ? `${key?.length ?? 0} bytes` : value);
  }
  return key;
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

/** `waitingSecret`: the middleware's, from which the digest key is derived when none is given. */
export function resolveRateLimitOptions(value: RateLimitOptions | undefined, waitingSecret?: Buffer): Readonly<ResolvedRateLimitOptions> {
  const given = group('rateLimit', value, ['default', 'headers', 'storeFailure', 'ipv6Prefix', 'maxKeys', 'maxPending', 'digestKey']);
  const defaults = resolveRateLimits(given.default, 'rateLimit.default', fail, false);
  return Object.freeze({
    default: defaults === false ? undefined : defaults,
    headers: oneOf('rateLimit.headers', given.headers, ['always', 'refused'], 'always'),
    storeFailure: oneOf('rateLimit.storeFailure', given.storeFailure, ['local', 'refuse'], 'local'),
    ipv6Prefix: wholeNumber('rateLimit.ipv6Prefix', given.ipv6Prefix, 1, 128, 56),
    maxKeys: wholeNumber('rateLimit.maxKeys', given.maxKeys, 1, 10_000_000, 10_000),
    maxPending: wholeNumber('rateLimit.maxPending', given.maxPending, 1, 1_000_000, 1000),
    digestKey: digestKeyOf(given.digestKey, waitingSecret),
  });
}

export function rateLimitSettings(options: ResolvedRateLimitOptions, proxyHops: number, registry: WebhookRegistry, logger: WebhookLogger): RateLimitSettings {
  const configured = options.digestKey;
  return {
    defaults: options.default, headers: options.headers, maxKeys: options.maxKeys, ipv6Prefix: options.ipv6Prefix, proxyHops,
    digest: configured === undefined ? digest : keyedDigest(configured),
    storeKey: configured === undefined ? registry.digestKey?.bind(registry) : undefined,
    // Budgets counted in this process (the memory registry's, or a registry's without chargeRateLimits) never leave
    // it: nobody reads them, so an unkeyed digest is no exposure.
    unkeyedTold: configured !== undefined || registry instanceof MemoryWebhookRegistry || registry.chargeRateLimits === undefined,
    store: new RateLimitStore(registry, options.storeFailure, logger, options.maxPending), plans: new WeakMap(), logger,
  };
}
