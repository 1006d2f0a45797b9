/**
 * A worker's store going away and coming back, told as two lines in the host's log: the first failure of the outage,
 * and the moment a probe of the store answers again. While the store is away BullMQ reports every failed try of each
 * of its loops, and each connection of ours its own loss: several lines a second that tell an operator nothing the
 * first did not. What ended it is remembered, so a run taken up again after it can name the outage as its cause.
 */
import { errorFields, type WebhookLogger } from '../../core/logger.js';

/** How often the store is probed while it is away: its return is told within this of its first answer. */
const PROBE_EVERY_MS = 500;

export interface OutageLogSettings {
  logger: WebhookLogger;
  /** Who is speaking (`queue worker`). */
  who: string;
  /** The store's name (`PostgreSQL`, `Redis`). */
  store: string;
  /** One cheap round trip to the store; resolves when it answers. */
  probe: () => Promise<unknown>;
  /** Whether a failure means the store is away (default: any); others are the caller's to tell as they come. */
  isOutage?: (error: unknown) => boolean;
}

export class OutageLog {
  readonly #settings: OutageLogSettings;
  /** When the outage under way began; undefined while the store answers. */
  #since: number | undefined;
  #lastEnded: number | undefined;
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(settings: OutageLogSettings) {
    this.#settings = settings;
  }

  /** Whether `error` means the store is away, and so belongs to this account. */
  covers(error: unknown): boolean {
    return this.#settings.isOutage?.(error) ?? true;
  }

  /** Something failed for want of the store: told if it is the outage's first failure, counted otherwise. */
  failed(error: unknown): void {
    if (this.#closed) return;
    this.#failures += 1;
    if (this.#since !== undefined) return;
    this.#since = Date.now();
    this.#failures = 1;
    const { logger, who, store } = this.#settings;
    logger.warn({ err: errorFields(error), store }, `${who}: ${store} failed; its runs wait and it goes on trying (one more line tells when it is back)`);
    this.#probeLater();
  }

  /** Ms since the last outage ended (0 while one is under way); undefined when there was none. */
  sinceOutageMs(): number | undefined {
    if (this.#since !== undefined) return 0;
    return this.#lastEnded === undefined ? undefined : Date.now() - this.#lastEnded;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #probeLater(): void {
    this.#timer = setTimeout(() => { void this.#probe(); }, PROBE_EVERY_MS);
    // The worker's own loops keep the process alive; a probe must not keep one that is ending.
    this.#timer.unref();
  }

  async #probe(): Promise<void> {
    try {
      await this.#settings.probe();
    } catch {
      if (!this.#closed) this.#probeLater();
      return;
    }
    if (this.#closed || this.#since === undefined) return;
    const downMs = Date.now() - this.#since;
    const { logger, who, store } = this.#settings;
    logger.warn({ store, downMs, failures: this.#failures }, `${who}: ${store} answers again after ${downMs} ms (${this.#failures} failed tries meanwhile); runs go on`);
    this.#since = undefined;
    this.#lastEnded = Date.now();
  }
}
