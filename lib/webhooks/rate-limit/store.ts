/**
 * Where a limited call is counted: the registry's shared store when it offers `chargeRateLimits` (Redis: every
 * instance), else this process. When the shared store fails (Redis away, a command past its timeout), the call is
 * counted in this process (`storeFailure: 'local'`: each instance lets up to the limit through, so N instances up to
 * N times it, instead of no limit at all) or refused 503 `REGISTRY_UNAVAILABLE` (`'refuse'`). The outage is logged
 * once with its cause, and so is its end.
 *
 * Two things keep that promise. Every call the shared store lets through is also counted here, in windows that end
 * where the store's do, so an instance that must count alone starts from the calls it already let through in the
 * window, not from zero. And once the store failed, no call waits for it: calls are counted here at once, and one
 * call at a time, at most once a second, also asks the store in the background (a probe); the first answer it gets
 * hands the counting back to the store.
 */
import { errorFields, type WebhookLogger } from '../../core/logger.js';
import { WebhookError } from '../../core/errors.js';
import type { RateLimitCharge, RateLimitResult } from '../../core/rate-limits.js';
import type { WebhookRegistry } from '../registry/contract.js';
import { InProcessRateLimits } from '../registry/rate-limits.js';
import type { ResolvedRateLimitOptions } from './settings.js';

/** How long after a failed try the store is tried again (by one call, in the background). */
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
  /** When the next probe may start, while the store is down. */
  #retryAt = 0;
  /** A probe is asking the store: no other call does until it is answered or fails. */
  #probing = false;
  #toldUnshared = false;

  constructor(registry: WebhookRegistry, failure: StoreFailure, logger: WebhookLogger) {
    this.#shared = registry.chargeRateLimits?.bind(registry);
    this.#failure = failure;
    this.#logger = logger;
  }

  charge(charges: readonly RateLimitCharge[]): RateLimitResult | Promise<RateLimitResult> {
    const shared = this.#shared;
    if (shared === undefined) return this.#unshared(charges);
    if (this.#downSince !== undefined) {
      if (!this.#probing && performance.now() >= this.#retryAt) this.#probe(shared, charges);
      return this.#withoutStore(charges);
    }
    let asked: Promise<RateLimitResult>;
    try {
      asked = shared(charges);
    } catch (error) {
      return this.#failed(error, charges);
    }
    return Promise.resolve(asked).then((result) => this.#counted(result, charges))
      .catch((error: unknown) => this.#failed(error, charges));
  }

  /**
   * The store's answer, checked; a call it let through is counted here too, in the store's windows. (An answer to a
   * call that asked before an outage began also ends it.)
   */
  #counted(result: RateLimitResult, charges: readonly RateLimitCharge[]): RateLimitResult {
    const valid = checked(result, charges.length);
    if (valid.allowed) this.#local.record(charges, valid.resetMs);
    this.#back();
    return valid;
  }

  /**
   * Asks the store for this call in the background, while the call itself was counted here: the store counts it too
   * (a call this process refused is counted there as well, erring on the strict side), and its first answer ends the
   * outage. The probe never rejects.
   */
  #probe(shared: (charges: readonly RateLimitCharge[]) => Promise<RateLimitResult>, charges: readonly RateLimitCharge[]): void {
    this.#probing = true;
    const settle = (up: boolean): void => {
      this.#probing = false;
      if (up) this.#back();
      else this.#retryAt = performance.now() + RETRY_AFTER_MS;
    };
    let asked: Promise<RateLimitResult>;
    try {
      asked = shared(charges);
    } catch {
      settle(false);
      return;
    }
    Promise.resolve(asked).then((result) => { checked(result, charges.length); settle(true); }, () => settle(false))
      .catch(() => settle(false));
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
    this.#retryAt = Math.max(this.#retryAt, now + RETRY_AFTER_MS);
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
    if (this.#downSince === undefined) return;
    const downMs = Math.round(performance.now() - (this.#downSince as number));
    this.#downSince = undefined;
    this.#logger.warn({ component: 'rate-limit', downMs }, `workflow-webhooks: the registry counts rate limits again, after ${downMs} ms`);
  }
}
