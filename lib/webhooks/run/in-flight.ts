/**
 * The calls in flight, for the run limit and a graceful shutdown. One timer, shared by all calls and running only
 * while calls are under way (it stops at its first tick that finds none), tells runs past `maxRunMs` to stop (no
 * timer per call). `drain()` waits for the calls under way until its timeout, then tells the rest to stop through
 * run.signal (their waiting callers are answered 503 there), releases their temp files, and says how many ended which
 * way; the middleware answers new calls 503 once it is closing.
 */
import { WebhookError } from '../../core/errors.js';
import { SlotSet } from '../../core/slot-set.js';
import type { WebhookShutdownResult } from '../../core/types.js';

/** What the in-flight set needs to know of a call. */
export interface TrackedCall {
  /** When its run started (ms, Date.now()); 0 while no run is under way. */
  runStartedAt: number;
  /** Where the in-flight set keeps it (set by `add`). */
  inFlightSlot: number;
}

export interface InFlightHandlers<T extends TrackedCall> {
  /** Tells the call's run to stop. */
  stop(call: T, reason: WebhookError): void;
  /** Releases what the call holds (temp files) without waiting for its run. */
  release(call: T): Promise<void>;
  /** A run passed maxRunMs. */
  overran(call: T): void;
}

/** How long close() waits, after stopping the runs still going, for their callers' answers to be written. */
const ANSWER_GRACE_MS = 1000;

function stoppedAtShutdown(): WebhookError {
  return new WebhookError('SHUTTING_DOWN', 'The server shut down before the workflow answered; the run was told to stop.', {
    hint: 'Send the call again in a moment; another instance may take it.',
    headers: { 'retry-after': '5', connection: 'close' },
  });
}

export class InFlight<T extends TrackedCall> {
  readonly #calls = new SlotSet<T>();
  readonly #handlers: InFlightHandlers<T>;
  readonly #maxRunMs: number;
  #sweeper: NodeJS.Timeout | undefined;
  #closing = false;
  #emptied: (() => void) | undefined;

  constructor(maxRunMs: number, handlers: InFlightHandlers<T>) {
    this.#maxRunMs = maxRunMs;
    this.#handlers = handlers;
  }

  get closing(): boolean {
    return this.#closing;
  }

  add(call: T): void {
    call.inFlightSlot = this.#calls.add(call);
    if (this.#sweeper === undefined && this.#maxRunMs !== Infinity) {
      this.#sweeper = setInterval(() => this.#sweep(), Math.max(10, Math.min(1000, this.#maxRunMs / 4)));
      this.#sweeper.unref();
    }
  }

  /** The call is done: answered, its run over, its files gone. */
  remove(call: T): void {
    if (!this.#calls.delete(call.inFlightSlot, call)) return;
    if (this.#calls.size === 0) this.#emptied?.();
  }

  /**
   * Waits for the calls under way until `timeoutMs`, then stops the rest: each caller still waiting is answered 503
   * SHUTTING_DOWN at once (a late result is dropped), and the drain resolves once those answers are written (or
   * `ANSWER_GRACE_MS` later), so a host that exits next leaves nobody without an answer.
   */
  async drain(timeoutMs: number): Promise<WebhookShutdownResult> {
    this.#closing = true;
    const pending = this.#calls.members();
    await this.#untilEmpty(timeoutMs);
    const left = pending.filter((call) => this.#calls.has(call.inFlightSlot, call));
    const reason = stoppedAtShutdown();
    for (const call of left) this.#handlers.stop(call, reason);
    await Promise.all(left.map((call) => this.#handlers.release(call)));
    await this.#untilEmpty(ANSWER_GRACE_MS);
    return { completed: pending.length - left.length, aborted: left.length };
  }

  /** Resolves when no call is left, or after `ms`. */
  async #untilEmpty(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.#emptied = resolve;
      if (this.#calls.size === 0) resolve();
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    this.#emptied = undefined;
  }

  /**
   * The sweep stops at the first tick that finds no call, not when the last call leaves: under steady load the set
   * empties between calls all the time, and a timer made and cleared each time would cost every call.
   */
  #sweep(): void {
    if (this.#calls.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
      return;
    }
    const before = Date.now() - this.#maxRunMs;
    for (const call of this.#calls.members()) {
      if (call.runStartedAt === 0 || call.runStartedAt > before) continue;
      call.runStartedAt = 0;
      this.#handlers.overran(call);
    }
  }
}
