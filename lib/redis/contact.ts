/**
 * How long since Redis last answered this instance, and the events said when the link drops or comes back: what
 * `health()` reports and what decides whether calls may still be served from the in-memory table.
 */
import type { RedisRegistryEvent } from './options.js';

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
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
