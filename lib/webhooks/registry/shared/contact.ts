/**
 * How long since a shared store (Redis, PostgreSQL) last answered this instance, and the events said when the link
 * drops or comes back: what `health()` reports and what decides whether calls may still be served from the in-memory
 * table (`checkServing`). A change the store could not take is refused with one error, whichever store it is.
 */
import { WebhookError } from '../../../core/errors.js';
import type { SharedStoreEvent } from './events.js';

/** Seconds a caller refused for want of the store is told to wait (`Retry-After`): outages of a restart or failover. */
export const STORE_RETRY_AFTER_S = 2;

/**
 * A change or read the store could not answer: 503 REGISTRY_UNAVAILABLE with Retry-After, naming the store and what
 * was being done.
 */
export function unavailable(store: string, cause: unknown, doing: string): WebhookError {
  const reason = cause instanceof Error && cause.message !== '' ? `: ${cause.message}` : '';
  const error = new WebhookError('REGISTRY_UNAVAILABLE', `${store} could not be reached while ${doing}${reason}.`, {
    cause,
    headers: { 'retry-after': String(STORE_RETRY_AFTER_S) },
    hint: `Changes to the webhook registry need ${store}; calls to active webhooks are still served from memory. Check that ${store} is running and reachable.`,
  });
  outages.add(error);
  return error;
}

/** The refusals that mean the store is away, which waiting mends, apart from those of the same code that it does not. */
const outages = new WeakSet<Error>();

/**
 * A statement that waited its whole deadline for a connection of the pool while the store answered others meanwhile:
 * the store is there and busy, which is load, not an outage. 503 with Retry-After like an outage, but never marked as
 * one, so nothing switches to counting alone or reports the store lost.
 */
export function busy(store: string, doing: string, waitedMs: number): WebhookError {
  const error = new WebhookError('REGISTRY_UNAVAILABLE', `${store} is busy: no connection of the pool came free within ${waitedMs} ms while ${doing}.`, {
    headers: { 'retry-after': '1' },
    hint: `Every connection of the pool was taking other statements. Try again in a moment; if it lasts, give the pool more connections (max) or ${store} more capacity.`,
  });
  busyErrors.add(error);
  return error;
}

const busyErrors = new WeakSet<Error>();

/** Whether `error` says the store answered but had no connection free in time (`busy()`). */
export function isStoreBusy(error: unknown): boolean {
  return error instanceof Error && busyErrors.has(error);
}

/** Whether `error` says the store could not be reached (not a schema of another version, say, under the same code). */
export function isStoreOutage(error: unknown): boolean {
  return error instanceof Error && outages.has(error);
}

/**
 * The registry has not loaded yet: its store could not be reached since it started (within `timeoutMs` of a
 * `ready()`), so no webhook is served. It keeps trying; the last cause is named.
 */
export function notLoaded(store: string, cause: Error | undefined, timeoutMs: number | undefined): WebhookError {
  const within = timeoutMs === undefined ? '' : ` within ${timeoutMs} ms`;
  const reason = cause === undefined ? '' : `: ${cause.message.replace(/\.$/, '')}`;
  return new WebhookError('REGISTRY_UNAVAILABLE', `The webhook registry could not load from ${store}${within}${reason}.`, {
    cause,
    headers: { 'retry-after': String(STORE_RETRY_AFTER_S) },
    hint: `No webhook is served until the registry has loaded once; it keeps trying until ${store} answers (or close()). Check that ${store} is running and reachable.`,
  });
}

/** Settles like `work`, or rejects with `onLate()` after `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number, onLate: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(onLate()), ms); });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Refuses a look-up before the registry is ready, or once it has been cut off from its store for longer than `staleAfterMs`. */
export function checkServing(ready: boolean, contact: StoreContact, staleAfterMs: number): void {
  if (!ready) {
    throw new WebhookError('REGISTRY_UNAVAILABLE', `The webhook registry has not loaded from ${contact.store} yet.`, {
      hint: `Calls are answered once it has loaded; it keeps trying while ${contact.store} is away. Await registry.ready() before the server takes calls.`,
      headers: { 'retry-after': '1' },
    });
  }
  if (contact.stale(staleAfterMs)) {
    throw new WebhookError('REGISTRY_UNAVAILABLE', `The webhook registry has lost ${contact.store} for longer than staleAfterMs allows.`, {
      hint: `Calls are refused until ${contact.store} answers again, so that no call is served from an out-of-date table.`,
      headers: { 'retry-after': '1' },
    });
  }
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

export class StoreContact {
  /** The store's name in messages (`Redis`, `PostgreSQL`). */
  readonly store: string;
  readonly #onEvent: (event: SharedStoreEvent) => void;
  #connected = false;
  #lastContact = 0;

  constructor(store: string, onEvent: (event: SharedStoreEvent) => void) {
    this.store = store;
    this.#onEvent = onEvent;
  }

  get connected(): boolean {
    return this.#connected;
  }

  /** Milliseconds since the store last answered (0 before it ever did). */
  get sinceMs(): number {
    return this.#lastContact === 0 ? 0 : Date.now() - this.#lastContact;
  }

  /** Cut off for longer than `staleAfterMs`. */
  stale(staleAfterMs: number): boolean {
    return !this.#connected && Date.now() - this.#lastContact > staleAfterMs;
  }

  /** The store answered (no error), or the link failed (with the error): tells the change once. */
  record(error?: unknown): void {
    if (error === undefined) {
      const downMs = this.#lastContact === 0 ? 0 : Date.now() - this.#lastContact;
      this.#lastContact = Date.now();
      if (this.#connected) return;
      this.#connected = true;
      if (downMs > 0) this.#onEvent({ type: 'reconnected', downMs });
      return;
    }
    if (!this.#connected) return;
    this.#connected = false;
    this.#onEvent({ type: 'disconnected', error: asError(error) });
  }
}
