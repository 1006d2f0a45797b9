/**
 * How long since Redis last answered this instance, and the events said when the link drops or comes back: what
 * `health()` reports and what decides whether calls may still be served from the in-memory table (`checkServing`).
 */
import { WebhookError } from '../core/errors.js';
import { asError } from './client.js';
import type { RedisRegistryEvent } from './options.js';

/** Refuses a look-up before the registry is ready, or once it has been cut off from Redis for longer than `staleAfterMs`. */
export function checkServing(ready: boolean, contact: RedisContact, staleAfterMs: number): void {
  if (!ready) {
    throw new WebhookError('REGISTRY_UNAVAILABLE', 'The webhook registry is not ready.', {
      hint: 'await registry.ready() before the server takes calls.',
      headers: { 'retry-after': '1' },
    });
  }
  if (contact.stale(staleAfterMs)) {
    throw new WebhookError('REGISTRY_UNAVAILABLE', 'The webhook registry has lost Redis for longer than staleAfterMs allows.', {
      hint: 'Calls are refused until Redis answers again, so that no call is served from an out-of-date table.',
      headers: { 'retry-after': '1' },
    });
  }
}

export class RedisContact {
  readonly #onEvent: (event: RedisRegistryEvent) => void;
  #connected = false;
  #lastContact = 0;

  constructor(onEvent: (event: RedisRegistryEvent) => void) {
    this.#onEvent = onEvent;
  }

  get connected(): boolean {
    return this.#connected;
  }

  /** Milliseconds since Redis last answered (0 before it ever did). */
  get sinceMs(): number {
    return this.#lastContact === 0 ? 0 : Date.now() - this.#lastContact;
  }

  /** Cut off for longer than `staleAfterMs`. */
  stale(staleAfterMs: number): boolean {
    return !this.#connected && Date.now() - this.#lastContact > staleAfterMs;
  }

  /** Redis answered (no error), or the link failed (with the error): tells the change once. */
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
