/**
 * The rate limit stage, between the guards and the body: a call to a production address with a rate limit (its
 * workflow's `settings.rateLimit`, else the middleware's `rateLimit.default`) spends one call of each budget, or is
 * refused 429 `RATE_LIMITED` before its body is read, and never runs. Only a call that passed every guard of its node
 * spends anything, so a flood without valid credentials cannot use up a legitimate caller's budget: for a signed
 * webhook that means after its signature is verified, which needs the body (the one case where a refused call's body
 * was read). Test addresses (one call per listen, opened by an editor) and resume addresses (signed, each resumed
 * once) are not limited. An address without a limit costs a call that reads two properties: no promise, closure or
 * object.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rateLimitsOf, type RateLimitCharge, type RateLimitResult, type ResolvedRateLimitPolicy } from '../../core/rate-limits.js';
import type { WebhookLogger } from '../../core/logger.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import type { AuthOutcome } from '../guards/authenticate.js';
import type { RequestTarget } from '../request/target.js';
import type { PendingSignature } from '../guards/signature.js';
import { callerBudget, keyedDigest, type CallerKeySettings, type Digest } from './caller-key.js';
import { limitField, policyField, rateLimited } from './fields.js';
import type { RateLimitStore } from './store.js';

export interface RateLimitSettings extends CallerKeySettings {
  /** The digest in force: under `rateLimit.digestKey` (or the key derived from `waitingSecret`), the store's key, or none. */
  digest: Digest;
  /** The registry's `digestKey()`, asked once, at the first plan, when no key is configured; undefined once asked. */
  storeKey: (() => Buffer | undefined) | undefined;
  /** Whether the logger was told that the digests are unkeyed (once; true from the start when a key is set). */
  unkeyedTold: boolean;
  /** Every address's limit when its workflow sets none (`rateLimit.default`). */
  defaults: readonly ResolvedRateLimitPolicy[] | undefined;
  /** `always`: RateLimit-Policy and RateLimit on accepted calls too; `refused`: on refusals only. */
  headers: 'always' | 'refused';
  /** New caller budgets per address, policy and window before new callers share one. */
  maxKeys: number;
  store: RateLimitStore;
  /** Each webhook's plan, made on its first limited call (its digests and its RateLimit-Policy). */
  plans: WeakMap<RegisteredWebhook, Plan>;
  logger: WebhookLogger;
}

interface Plan {
  policies: readonly ResolvedRateLimitPolicy[];
  /** The charges when every policy is address-wide (the same for every call), else undefined. */
  fixed: RateLimitCharge[] | undefined;
  scopes: string[];
  policyField: string;
  /** Whether the logger was told that a policy keys by a header no guard checks (once per webhook). */
  toldUnchecked: boolean;
}

function planOf(webhook: RegisteredWebhook, policies: readonly ResolvedRateLimitPolicy[], settings: RateLimitSettings): Plan {
  let plan = settings.plans.get(webhook);
  if (plan !== undefined && plan.policies === policies) return plan;
  if (settings.storeKey !== undefined) adoptStoreKey(settings);
  if (!settings.unkeyedTold && policies.some((policy) => policy.key !== 'address')) tellUnkeyed(settings);
  const scopes = policies.map((policy) => settings.digest(webhook.workflowId, webhook.method, webhook.path, policy.name, String(policy.windowMs), policy.key));
  const fixed = policies.every((policy) => policy.key === 'address')
    ? policies.map((policy, index) => chargeOf(policy, scopes[index] as string, scopes[index] as string, settings.maxKeys))
    : undefined;
  plan = { policies, fixed, scopes, policyField: policyField(policies), toldUnchecked: fixed !== undefined };
  settings.plans.set(webhook, plan);
  return plan;
}

/**
 * The deployment's key kept by the registry's store, when it has one: read at the first plan, since a registry over a
 * store serves no call before it has loaded it, and kept, so this instance's budgets never change names under it.
 */
function adoptStoreKey(settings: RateLimitSettings): void {
  const key = settings.storeKey?.();
  settings.storeKey = undefined;
  if (!Buffer.isBuffer(key) || key.length < 32) return;
  settings.digest = keyedDigest(key);
  settings.unkeyedTold = true;
}

function chargeOf(policy: ResolvedRateLimitPolicy, scope: string, budget: string, maxKeys: number): RateLimitCharge {
  return { budget, scope, limit: policy.limit, windowMs: policy.windowMs, maxKeys };
}

/**
 * Undefined when the call is not limited (or is a signed one, limited once its signature holds); else the check,
 * which rejects with RATE_LIMITED when a budget is spent.
 */
export function limitCall(req: IncomingMessage, res: ServerResponse, kind: RequestTarget['kind'], webhook: RegisteredWebhook,
  settings: RateLimitSettings, auth: AuthOutcome): Promise<void> | undefined {
  if (kind !== 'production') return undefined;
  const policies = rateLimitsOf(webhook, settings.defaults);
  if (policies === undefined) return undefined;
  const plan = planOf(webhook, policies, settings);
  if (!plan.toldUnchecked) tellUnchecked(plan, webhook, auth, settings.logger);
  if (auth !== undefined && 'signature' in auth) {
    const signed = auth as { signature: PendingSignature };
    const pending = signed.signature;
    signed.signature = {
      verify: async (body) => {
        const verified = await pending.verify(body);
        await charge(req, res, plan, settings, auth);
        return verified;
      },
    };
    return undefined;
  }
  return charge(req, res, plan, settings, auth);
}

async function charge(req: IncomingMessage, res: ServerResponse, plan: Plan, settings: RateLimitSettings, auth: AuthOutcome): Promise<void> {
  const charges = plan.fixed ?? plan.policies.map((policy, index) => {
    const scope = plan.scopes[index] as string;
    return chargeOf(policy, scope, policy.key === 'address' ? scope : callerBudget(scope, policy.key, req, settings, auth), settings.maxKeys);
  });
  const counted = settings.store.charge(charges);
  const result: RateLimitResult = counted instanceof Promise ? await counted : counted;
  const limits = limitField(plan.policies, result);
  if (!result.allowed) throw rateLimited(plan.policies, result, besideHost(res, 'ratelimit-policy', plan.policyField), besideHost(res, 'ratelimit', limits));
  if (settings.headers === 'always') {
    res.setHeader('ratelimit-policy', besideHost(res, 'ratelimit-policy', plan.policyField));
    res.setHeader('ratelimit', besideHost(res, 'ratelimit', limits));
  }
}

/**
 * A header no guard checks is whatever the caller sends: each new value is a new budget, and past `maxKeys` values
 * its holder drains the budget that new callers share. Said once per webhook, unless an address or ip policy of the
 * same list caps it.
 */
function tellUnchecked(plan: Plan, webhook: RegisteredWebhook, auth: AuthOutcome, logger: WebhookLogger): void {
  plan.toldUnchecked = true;
  if (plan.policies.some((policy) => policy.key === 'address' || policy.key === 'ip')) return;
  const unchecked = plan.policies.filter((policy) => policy.key !== auth?.checkedHeader).map((policy) => policy.key);
  if (unchecked.length === 0) return;
  logger.warn({ component: 'rate-limit', workflowId: webhook.workflowId, nodeName: webhook.nodeName, keys: unchecked },
    `workflow-webhooks: the rate limit of ${webhook.method} ${webhook.path} is keyed by the header ${unchecked.join(', ')}, which the node's `
    + 'authentication does not check: a caller gets a new budget for each value it makes up. Key it by the header the authentication '
    + 'checks, or add an \'address\' or \'ip\' policy as a ceiling. Told once per address.');
}

/**
 * Callers' budgets digested without a key: a reader of the store can match them against every IPv4 address or a
 * list of likely header values. Said once per middleware, at its first per-caller policy.
 */
function tellUnkeyed(settings: RateLimitSettings): void {
  settings.unkeyedTold = true;
  settings.logger.warn({ component: 'rate-limit' }, 'workflow-webhooks: rate limits per caller are stored under unkeyed digests of the '
    + 'caller\'s address or header value, which a reader of the store can undo by trying every IPv4 address. Set rateLimit.digestKey '
    + '(or waitingSecret), at least 32 bytes, the same on every instance, or use a registry that keeps a key (digestKey()). Told once.');
}

/** Ours after the host's own policies (a gateway's, say): both fields are lists, which may be joined with a comma. */
function besideHost(res: ServerResponse, name: string, value: string): string {
  const host = res.getHeader(name);
  return typeof host === 'string' && host.trim() !== '' ? `${host}, ${value}` : value;
}

export { rateLimitSettings, resolveRateLimitOptions, type RateLimitOptions, type ResolvedRateLimitOptions } from './settings.js';
