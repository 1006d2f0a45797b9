/**
 * Starting something that needs a store (a registry's load, a queue's connections) while the store may be down,
 * restarting or refusing connections: tried again with a bounded pause until it starts or is stopped, the first
 * failure of a streak told once, and any number of waiters, each with its own optional deadline. A failure retrying
 * cannot mend (`retryable` false: a wrong option, a schema of another version) ends the streak and is given to the
 * waiters; the next `wait()` starts again.
 */

/**
 * Pauses between tries: short at first (a restart is back within a second), never longer than half a second, so a
 * call is taken again within about a second of the store answering. A try against a store that is down costs one
 * refused connection.
 */
export const START_PAUSES_MS: readonly number[] = [100, 200, 400, 500];

export interface StartRetriesSettings<T> {
  /** One try; resolves with what was started. */
  attempt: () => Promise<T>;
  /** Whether a failure may mend by itself (the store unreachable, restarting, out of connections). */
  retryable: (error: unknown) => boolean;
  /** The first failed try of a streak, with its cause: told once, not per try. */
  onUnreachable: (error: Error) => void;
  /** Every failure that ends the streak (not retried), with its cause. */
  onFailed?: (error: Error) => void;
  pausesMs?: readonly number[];
}

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

export class StartRetries<T> {
  readonly #settings: StartRetriesSettings<T>;
  readonly #waiters = new Set<Waiter<T>>();
  #state: 'idle' | 'trying' | 'started' | 'stopped' = 'idle';
  #value: T | undefined;
  #lastError: Error | undefined;
  #tries = 0;
  #pause: NodeJS.Timeout | undefined;
  #inFlight: Promise<unknown> | undefined;

  constructor(settings: StartRetriesSettings<T>) {
    this.#settings = settings;
  }

  /** The cause of the last failed try of the current streak (undefined before any, or once started). */
  get lastError(): Error | undefined {
    return this.#lastError;
  }

  /** Tries made in the current streak, the one that started included. */
  get tries(): number {
    return this.#tries;
  }

  get started(): boolean {
    return this.#state === 'started';
  }

  /** Starts trying unless already trying or started. */
  begin(): void {
    if (this.#state !== 'idle') return;
    this.#state = 'trying';
    this.#tries = 0;
    this.#lastError = undefined;
    this.#try();
  }

  /**
   * What was started, once it is. Past `timeoutMs` (when given) rejects with `late(lastError)`, and the tries go on;
   * a failure that is not retried rejects every waiter with its cause.
   */
  wait(timeoutMs: number | undefined, late: (lastError: Error | undefined) => Error): Promise<T> {
    if (this.#state === 'stopped') return Promise.reject(late(this.#lastError));
    if (this.#state === 'started') return Promise.resolve(this.#value as T);
    this.begin();
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = { resolve, reject, timer: undefined };
      if (timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          this.#waiters.delete(waiter);
          reject(late(this.#lastError));
        }, timeoutMs);
      }
      this.#waiters.add(waiter);
    });
  }

  /** Resolves once no try is under way (after `stop()`: once the last one has ended, however). */
  settled(): Promise<void> {
    return (this.#inFlight ?? Promise.resolve()).then(() => undefined, () => undefined);
  }

  /** Stops trying for good; waiters are rejected with `error`. */
  stop(error: Error): void {
    this.#state = 'stopped';
    clearTimeout(this.#pause);
    this.#settle((waiter) => waiter.reject(error));
  }

  #try(): void {
    this.#tries += 1;
    const attempt = this.#settings.attempt();
    this.#inFlight = attempt;
    attempt.then((value) => {
      if (this.#state !== 'trying') return;
      this.#state = 'started';
      this.#value = value;
      this.#lastError = undefined;
      this.#settle((waiter) => waiter.resolve(value));
    }, (error: unknown) => {
      if (this.#state !== 'trying') return;
      const cause = error instanceof Error ? error : new Error(String(error));
      const first = this.#lastError === undefined;
      this.#lastError = cause;
      if (!this.#settings.retryable(error)) {
        this.#state = 'idle';
        this.#settings.onFailed?.(cause);
        this.#settle((waiter) => waiter.reject(error));
        return;
      }
      if (first) this.#settings.onUnreachable(cause);
      const pauses = this.#settings.pausesMs ?? START_PAUSES_MS;
      this.#pause = setTimeout(() => {
        if (this.#state === 'trying') this.#try();
      }, pauses[Math.min(this.#tries - 1, pauses.length - 1)]);
    });
  }

  #settle(each: (waiter: Waiter<T>) => void): void {
    for (const waiter of this.#waiters) {
      clearTimeout(waiter.timer);
      each(waiter);
    }
    this.#waiters.clear();
  }
}

/** A `ready({ timeoutMs })` checked: undefined (no deadline) or a number of ms, 0 or more. */
export function checkReadyTimeout(options: { timeoutMs?: unknown } | undefined, who: string): number | undefined {
  const timeoutMs = options?.timeoutMs;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0)) {
    throw new TypeError(`workflow-webhooks: ${who}.ready({ timeoutMs }) must be a finite number of ms, 0 or more; got ${String(timeoutMs)}.`);
  }
  return timeoutMs;
}
