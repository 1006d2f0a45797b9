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
 * hands the counting back to the store, and the calls let through here meanwhile are added to the store's count
 * (`addRateLimitCalls`), so that N instances together let at most N × limit through in a window.
 *
 * A store that answers but is busy (every connection of its pool taken, `isStoreBusy`) is load, not an outage: the call
 * is refused 503 with Retry-After, and counting stays shared. So are calls past `maxPending` waiting at once for the
 * store: a flood waits in a bounded line, and the rest is refused at once instead of waiting past the deadline.
 */
import { errorFields, type WebhookLogger } from '../../core/logger.js';
import { WebhookError } from '../../core/errors.js';
import type { RateLimitCharge, RateLimitResult } from '../../core/rate-limits.js';
import type { WebhookRegistry } from '../registry/contract.js';
import { InProcessRateLimits } from '../registry/rate-limits.js';
import { isStoreBusy } from '../registry/shared/contact.js';
import type { ResolvedRateLimitOptions } from './settings.js';
import { UnsharedCalls } from './unshared-calls.js';

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

type Charging = (charges: readonly RateLimitCharge[]) => Promise<RateLimitResult>;

export class RateLimitStore {
  readonly #shared: Charging | undefined;
  readonly #addShared: ((charges: readonly RateLimitCharge[], calls: readonly number[]) => Promise<void>) | undefined;
  readonly #local = new InProcessRateLimits();
  readonly #failure: StoreFailure;
  readonly #logger: WebhookLogger;
  readonly #maxPending: number;
  /** Calls asking the store now. */
  #pending = 0;
  /**
   * Calls let through here while the store could not count, to be added to it once it answers; none are kept for a
   * registry that cannot add them (no `addRateLimitCalls`).
   */
  readonly #unshared: UnsharedCalls | undefined;
  /** Those calls on their way to the store: new calls wait for them, so none is let through on the store's older count. */
  #addingBack: Promise<void> | undefined;
  /** Since when (performance.now()) the shared store has failed; undefined while it answers. */
  #downSince: number | undefined;
  /** When the next probe may start, while the store is down. */
  #retryAt = 0;
  /** A probe is asking the store: no other call does until it is answered or fails. */
  #probing = false;
  #toldUnshared = false;

  constructor(registry: WebhookRegistry, failure: StoreFailure, logger: WebhookLogger, maxPending: number) {
    this.#shared = registry.chargeRateLimits?.bind(registry);
    this.#addShared = registry.addRateLimitCalls?.bind(registry);
    this.#unshared = this.#addShared === undefined ? undefined : new UnsharedCalls();
    this.#failure = failure;
    this.#logger = logger;
    this.#maxPending = maxPending;
  }

  charge(charges: readonly RateLimitCharge[]): RateLimitResult | Promise<RateLimitResult> {
    const shared = this.#shared;
    if (shared === undefined) return this.#noStore(charges);
    if (this.#downSince !== undefined) {
      const probe = !this.#probing && performance.now() >= this.#retryAt;
      if (this.#failure === 'refuse') {
        if (probe) this.#probe(shared, charges, undefined);
        return this.#withoutStore(charges);
      }
      const result = this.#local.charge(charges);
      // The probe's call reaches the store itself: only when the probe fails is it one the store has not counted.
      if (probe) this.#probe(shared, charges, result);
      else this.#unshared?.add(charges, result);
      return result;
    }
    if (this.#pending >= this.#maxPending) throw this.#tooManyPending();
    this.#pending += 1;
    const asked = this.#addingBack === undefined ? this.#ask(shared, charges) : this.#addingBack.then(() => this.#ask(shared, charges));
    return asked.then((result) => this.#counted(result, charges)).catch((error: unknown) => this.#failed(error, charges))
      .finally(() => { this.#pending -= 1; });
  }

  #ask(shared: Charging, charges: readonly RateLimitCharge[]): Promise<RateLimitResult> {
    try {
      return Promise.resolve(shared(charges));
    } catch (error) {
      return Promise.reject(error);
    }
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
  #probe(shared: Charging, charges: readonly RateLimitCharge[], here: RateLimitResult | undefined): void {
    this.#probing = true;
    const settle = (up: boolean): void => {
      this.#probing = false;
      if (up) {
        this.#back();
        return;
      }
      this.#retryAt = performance.now() + RETRY_AFTER_MS;
      if (here !== undefined) this.#unshared?.add(charges, here);
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

  #noStore(charges: readonly RateLimitCharge[]): RateLimitResult {
    if (!this.#toldUnshared) {
      this.#toldUnshared = true;
      this.#logger.warn({ component: 'rate-limit' }, 'workflow-webhooks: the registry has no chargeRateLimits(), so rate limits are counted in this '
        + 'process: with several instances, each lets the limit through. Told once.');
    }
    return this.#local.charge(charges);
  }

  #failed(error: unknown, charges: readonly RateLimitCharge[]): RateLimitResult {
    // The store is there, its connections all taken: the call is refused 503, and counting stays shared.
    if (isStoreBusy(error)) throw error;
    const now = performance.now();
    this.#retryAt = Math.max(this.#retryAt, now + RETRY_AFTER_MS);
    if (this.#downSince === undefined) {
      this.#downSince = now;
      this.#logger.warn({ component: 'rate-limit', err: errorFields(error), storeFailure: this.#failure }, this.#failure === 'local'
        ? 'workflow-webhooks: the registry could not count a rate-limited call; until it can, each instance counts its own calls'
        : 'workflow-webhooks: the registry could not count a rate-limited call; until it can, calls to rate-limited addresses are refused 503');
    }
    const result = this.#withoutStore(charges);
    this.#unshared?.add(charges, result);
    return result;
  }

  #tooManyPending(): WebhookError {
    return new WebhookError('REGISTRY_UNAVAILABLE', `This instance has ${this.#maxPending} calls waiting for the registry to count them already (rateLimit.maxPending), so the call was not taken.`, {
      hint: 'Try again in a moment: the registry is counting the calls before this one.',
      headers: { 'retry-after': '1' },
    });
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
    this.#addBack();
  }

  /** Adds the calls let through here during the outage to the store's count; kept for the next time when it fails. */
  #addBack(): void {
    const add = this.#addShared;
    const unshared = this.#unshared;
    // An add-back under way: this one's calls wait in `unshared` for the next return of the store.
    if (add === undefined || unshared === undefined || this.#addingBack !== undefined) return;
    const batch = unshared.take();
    if (batch === undefined) return;
    let adding: Promise<void>;
    try {
      adding = Promise.resolve(add(batch.charges, batch.calls));
    } catch (error) {
      adding = Promise.reject(error);
    }
    this.#addingBack = adding.catch((error: unknown) => {
      unshared.restore(batch);
      this.#logger.warn({ component: 'rate-limit', err: errorFields(error) }, 'workflow-webhooks: the registry could not add the calls counted in this '
        + 'process during its outage; they are added the next time it counts again');
    }).finally(() => { this.#addingBack = undefined; });
  }
}
