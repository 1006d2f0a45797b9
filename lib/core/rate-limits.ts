/**
 * Rate limits: the policy a workflow's settings (or the middleware's default) give, checked once into its complete
 * form, and the contract between the request path and the store that counts (`chargeRateLimits` of a registry).
 * The store sees digests only: what identifies a caller (an address, an API key) never reaches it.
 */

/** Whose calls count together: every caller of the address, each caller address, or each value of a request header. */
export type RateLimitKey = 'address' | 'ip' | (string & Record<never, never>);

/** A rate limit as written in `settings.rateLimit` or the middleware's `rateLimit.default`. */
export interface RateLimitPolicy {
  /** Calls let through per window and key: a whole number, at least 1. */
  limit: number;
  /** The window in milliseconds: a whole number from 1000 (a second) to 86 400 000 (a day), opened by its first call. */
  windowMs: number;
  /**
   * `'address'` (default): every caller of the address together. `'ip'`: each caller address (through the middleware's
   * `proxyHops`; IPv6 by its /56 unless `rateLimit.ipv6Prefix` says otherwise). Any other value: the name of a request
   * header whose value (an API key, a tenant id) is the key; calls without it share one budget.
   */
  key?: RateLimitKey;
  /** Its name in the `RateLimit-Policy` and `RateLimit` headers: letters, digits, `_ . -`. Default `<address|ip|header>-<window>s`. */
  name?: string;
}

/** `settings.rateLimit`: one policy, several (a call must pass each), or `false` to opt out of the middleware's default. */
export type RateLimitSetting = RateLimitPolicy | readonly RateLimitPolicy[] | false;

/** A policy checked and completed: what a registry holds after activation. */
export interface ResolvedRateLimitPolicy {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
  /** `address`, `ip`, or a header name in lower case. */
  readonly key: string;
}

/** What one call asks of a store for one policy. */
export interface RateLimitCharge {
  /** The budget the call spends from: a digest of address, policy and caller key, never a caller's value. */
  budget: string;
  /**
   * The policy at this address (a digest), whose callers get budgets of their own: past `maxKeys` new budgets in one
   * window, further new callers share the scope's overflow budget. Equal to `budget` for an address-wide policy.
   */
  scope: string;
  limit: number;
  windowMs: number;
  maxKeys: number;
}

/** A store's answer, one entry per charge in order. */
export interface RateLimitResult {
  /** True when every budget had room: each was charged. False: none was. */
  allowed: boolean;
  /** Calls its budget still lets through in its window, after this one (0 for a budget that refused). */
  remaining: number[];
  /** Milliseconds until its budget's window ends (at least 1). */
  resetMs: number[];
}

/** Most policies one address may have. */
export const MAX_RATE_LIMIT_POLICIES = 4;
const MAX_WINDOW_MS = 86_400_000;
const MAX_LIMIT = 1_000_000_000;
const NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** How a policy's key reads a call. */
export function keyKindOf(key: string): 'address' | 'ip' | 'header' {
  return key === 'address' || key === 'ip' ? key : 'header';
}

/** A policy's window as the headers say it: whole seconds, rounded up (the draft has no sub-second windows). */
export const windowSeconds = (windowMs: number): number => Math.ceil(windowMs / 1000);

type Fail = (path: string, expected: string, value: unknown) => never;

function whole(value: unknown, least: number, most: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= least && value <= most;
}

function resolvePolicy(given: unknown, path: string, fail: Fail): ResolvedRateLimitPolicy {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) fail(path, 'an object { limit, windowMs, key?, name? }', given);
  const raw = given as Record<string, unknown>;
  for (const name of Object.keys(raw)) {
    if (!['limit', 'windowMs', 'key', 'name'].includes(name)) fail(`${path}.${name}`, 'absent (a policy has limit, windowMs, key and name)', raw[name]);
  }
  if (!whole(raw.limit, 1, MAX_LIMIT)) fail(`${path}.limit`, 'a whole number of calls, at least 1', raw.limit);
  if (!whole(raw.windowMs, 1000, MAX_WINDOW_MS)) fail(`${path}.windowMs`, 'a whole number of milliseconds from 1000 to 86400000 (one day)', raw.windowMs);
  const key = raw.key ?? 'address';
  if (typeof key !== 'string' || !HEADER_NAME.test(key)) fail(`${path}.key`, '"address", "ip" or a request header name', key);
  const lower = key.toLowerCase();
  const kind = keyKindOf(lower);
  const name = raw.name ?? `${kind}-${windowSeconds(raw.windowMs)}s`;
  if (typeof name !== 'string' || !NAME.test(name)) fail(`${path}.name`, 'a name of letters, digits, "_", "." and "-" (64 at most)', name);
  return Object.freeze({ name, limit: raw.limit, windowMs: raw.windowMs, key: lower });
}

/**
 * A rate limit setting, checked: a frozen list of complete policies, `false` (opted out), or undefined (none given).
 * A list holds 1 to 4 policies with distinct names; `false` is refused unless `optOut`. `fail` reports the first
 * mistake, naming where it is.
 */
export function resolveRateLimits(value: unknown, path: string, fail: Fail, optOut = true): readonly ResolvedRateLimitPolicy[] | false | undefined {
  if (value === undefined || (optOut && value === false)) return value;
  const list = Array.isArray(value) ? value as unknown[] : [value];
  if (value === false || list.length === 0 || list.length > MAX_RATE_LIMIT_POLICIES) {
    fail(path, `a policy { limit, windowMs, key? }${optOut ? ',' : ' or'} a list of 1 to ${MAX_RATE_LIMIT_POLICIES} of them${optOut ? ', or false' : ''}`, value);
  }
  const policies = list.map((policy, index) => resolvePolicy(policy, Array.isArray(value) ? `${path}[${index}]` : path, fail));
  const names = new Set<string>();
  for (const [index, policy] of policies.entries()) {
    if (names.has(policy.name)) fail(`${path}[${index}].name`, `unique among the policies (two are named "${policy.name}": give one a name)`, policy.name);
    names.add(policy.name);
  }
  return Object.freeze(policies);
}

/**
 * The policies that hold at a production address: its workflow's (held complete after activation), else the
 * middleware's default; undefined when it is not limited (`false` opts out of the default).
 */
export function rateLimitsOf(webhook: { settings?: { rateLimit?: unknown } | undefined },
  defaults: readonly ResolvedRateLimitPolicy[] | undefined): readonly ResolvedRateLimitPolicy[] | undefined {
  const own = webhook.settings?.rateLimit as readonly ResolvedRateLimitPolicy[] | false | undefined;
  const policies = own ?? defaults;
  return policies === false ? undefined : policies;
}

/** A policy in words: `10 calls per 60 s from each caller address`. */
export function describeRateLimit(policy: ResolvedRateLimitPolicy): string {
  const kind = keyKindOf(policy.key);
  const whose = kind === 'address' ? 'from all callers together' : kind === 'ip' ? 'from each caller address' : `for each value of the ${policy.key} header`;
  return `${policy.limit} ${policy.limit === 1 ? 'call' : 'calls'} per ${windowSeconds(policy.windowMs)} s ${whose}`;
}
