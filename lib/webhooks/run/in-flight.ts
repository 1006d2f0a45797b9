/**
 * The calls in flight, for a graceful shutdown: `drain()` refuses nothing itself (the middleware answers new calls
 * 503 once it is closing), waits for the runs under way until the timeout, then tells the rest to stop through
 * run.signal and releases their temp files, and says how many ended which way.
 */
import { WebhookError } from '../errors.js';
import type { WebhookShutdownResult } from '../types.js';

export interface Flight {
  /** Settles when the call is done: answered, its run settled or stopped, its temp files gone. */
  done: Promise<void>;
  /** Aborts the run's signal. */
  stop(reason: WebhookError): void;
  /** Releases what the call holds (temp files) without waiting for its run. */
  release(): Promise<void>;
}

export type DrainResult = WebhookShutdownResult;

export class InFlight {
  readonly #flights = new Set<Flight>();
  #closing = false;

  get closing(): boolean {
    return this.#closing;
  }

  get size(): number {
    return this.#flights.size;
  }

  /** Tracks a call until it is done. */
  add(flight: Flight): void {
    this.#flights.add(flight);
    void flight.done.then(() => this.#flights.delete(flight));
  }

  async drain(timeoutMs: number): Promise<DrainResult> {
    this.#closing = true;
    const pending = [...this.#flights];
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); });
    await Promise.race([Promise.all(pending.map((flight) => flight.done)), timedOut]);
    clearTimeout(timer);
    const left = pending.filter((flight) => this.#flights.has(flight));
    const reason = new WebhookError('SHUTTING_DOWN', 'The server is shutting down; the run was told to stop.');
    for (const flight of left) flight.stop(reason);
    await Promise.all(left.map((flight) => flight.release()));
    return { completed: pending.length - left.length, aborted: left.length };
  }
}
