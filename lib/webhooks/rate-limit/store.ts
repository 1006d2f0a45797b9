/**
 * Where a limited call is counted: the registry's shared store when it offers `chargeRateLimits` (Redis: every
 * instance), else this process. When the shared store fails (Redis away, a command past its timeout), the call is
 * counted in this process (`storeFailure: 'local'`: each instance lets up to the limit through, so N instances up to
 * N times it, instead of no limit at all) or refused 503 `REGISTRY_UNAVAILABLE` (`'refuse'`). The outage is logged
 * once with its cause, and so is its end; for a second after a failure calls skip the store, so that an unreachable
 * Redis does not make every call wait for the command timeout.
 */
import { errorFields, type WebhookLogger } from '../../core/logger.js';
import { WebhookError } from '../../core/errors.js';
import type { RateLimitCharge, RateLimitResult } from '../../core/rate-limits.js';
import type { WebhookRegistry } from '../registry/contract.js';
import { InProcessRateLimits } from '../registry/rate-limits.js';
import type { ResolvedRateLimitOptions } from './settings.js';

/** How long calls skip a store that failed before one tries it again. */
const RETRY_AFTER_MS = 1000;

/** What a call gets while the store cannot count: the option `rateLimit.storeFailure`. */
export type StoreFailure = ResolvedRateLimitOptions['storeFailure'];

function checked(result: RateLimitResult, length: number): RateLimitResult {
  const valid = typeof result?.allowed === 'boolean' && Array.isArray(result.remaining) && Array.isArray(result.resetMs)
    && result.remaining.length === length && result.resetMs.length === length;
  if (!valid) throw new TypeError('chargeRateLimits() resolved with something other than { allowed, remaining[], resetMs[] } for every charge.');
  return result;
}

export class RateLimitStore {
  readonly #shared: ((charges: readonly RateLimitCharge[]) => Promise<RateLimitResult>) | undefined;
  readonly #local = new InProcessRateLimits();
  readonly #failure: StoreFailure;
  readonly #logger: WebhookLogger;
  /** Since when (performance.now()) the shared store has failed; undefined while it answers. */
  #downSince: number | undefined;
  #retryAt = 0;
  #toldUnshared = false;

  constructor(registry: WebhookRegistry, failure: StoreFailure, logger: WebhookLogger) {
    this.#shared = registry.chargeRateLimits?.bind(registry);
    this.#failure = failure;
    this.#logger = logger;
  }

  charge(charges: readonly RateLimitCharge[]): RateLimitResult | Promise<RateLimitResult> {
    const shared = this.#shared;
    if (shared === undefined) return this.#unshared(charges);
    if (this.#downSince !== undefined && performance.now() < this.#retryAt) return this.#withoutStore(charges);
    let asked: Promise<RateLimitResult>;
    try {
      asked = shared(charges);
    } catch (error) {
      return this.#failed(error, charges);
    }
    return Promise.resolve(asked).then((result) => {
      const valid = checked(result, charges.length);
      if (this.#downSince !== undefined) this.#back();
      return valid;
    }).catch((error: unknown) => this.#failed(error, charges));
  }

  #unshared(charges: readonly RateLimitCharge[]): RateLimitResult {
    if (!this.#toldUnshared) {
      this.#toldUnshared = true;
      this.#logger.warn({ component: 'rate-limit' }, 'workflow-webhooks: the registry has no chargeRateLimits(), so rate limits are counted in this '
        + 'process: with several instances, each lets the limit through. Told once.');
    }
    return this.#local.charge(charges);
  }

  #failed(error: unknown, charges: readonly RateLimitCharge[]): RateLimitResult {
    const now = performance.now();
    this.#retryAt = now + RETRY_AFTER_MS;
    if (this.#downSince === undefined) {
      this.#downSince = now;
      this.#logger.warn({ component: 'rate-limit', err: errorFields(error), storeFailure: this.#failure }, this.#failure === 'local'
        ? 'workflow-webhooks: the registry could not count a rate-limited call; until it can, each instance counts its own calls'
        : 'workflow-webhooks: the registry could not count a rate-limited call; until it can, calls to rate-limited addresses are refused 503');
    }
    return this.#withoutStore(charges);
  }

  #withoutStore(charges: readonly RateLimitCharge[]): RateLimitResult {
    if (this.#failure === 'local') return this.#local.charge(charges);
    throw new WebhookError('REGISTRY_UNAVAILABLE', 'The rate limit of this webhook cannot be counted now, so the call was not taken.', {
      hint: 'Try again in a moment.',
      headers: { 'retry-after': '1' },
    });
  }

  #back(): void {
    const downMs = Math.round(performance.now() - (this.#downSince as number));
    this.#downSince = undefined;
    this.#logger.warn({ component: 'rate-limit', downMs }, `workflow-webhooks: the registry counts rate limits again, after ${downMs} ms`);
  }
}
