/**
 * The expiry side of a shared store's waits (Redis, PostgreSQL), the same whatever the store: who listens for expired
 * waits, and the sweep that runs once a second while waits are stored or anyone listens, removing expired waits in
 * batches and telling the listeners of those that were still waiting. The store says how one batch is removed.
 */
import type { WaitEntry, WaitExpiredListener } from '../../../core/waits.js';

const SWEEP_MS = 1000;

/** One batch of expired waits the store removed. */
export interface ExpiredBatch {
  /** The removed waits that were still waiting: their listeners are told. */
  waiting: readonly WaitEntry[];
  /** The batch was full, so more may have expired: the sweep goes on at once. */
  full: boolean;
  /** Whether any wait, expired or not, is still stored; asked only when no one listens, to stop sweeping. */
  anyLeft: () => Promise<boolean>;
}

export abstract class ExpiringWaits {
  readonly #listeners = new Set<WaitExpiredListener>();
  #onError: (error: unknown) => void = () => undefined;
  #timer: NodeJS.Timeout | undefined;
  #sweeping = false;

  /** Listens for expired waits; the sweep runs once a second while anyone listens. */
  onExpired(listener: WaitExpiredListener, onError: (error: unknown) => void): () => void {
    this.#listeners.add(listener);
    this.#onError = onError;
    this.start();
    return () => { this.#listeners.delete(listener); };
  }

  /** Sweeps once a second while waits are stored or anyone listens (a sweep that finds none stops it otherwise). */
  start(): void {
    this.#timer ??= setInterval(() => void this.sweep(), SWEEP_MS).unref();
  }

  /** Removes the waits that expired (every one, in batches), telling the listeners of those that were waiting. */
  async sweep(): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      for (;;) {
        const batch = await this.removeExpired();
        for (const entry of batch.waiting) this.#tell(entry);
        if (batch.full) continue;
        if (this.#listeners.size === 0 && !(await batch.anyLeft())) this.close();
        return;
      }
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#sweeping = false;
    }
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Removes one batch of the waits expired by the store's clock, atomically, so each is removed (and told) by one instance. */
  protected abstract removeExpired(): Promise<ExpiredBatch>;

  #tell(entry: WaitEntry): void {
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}
