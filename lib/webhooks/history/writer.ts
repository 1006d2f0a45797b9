/**
 * Writes kept calls to the history store in batches, never on a call's path: a call's record joins the batch, and
 * a timer (every `flushMs`) writes the batch with one `append`, one batch in flight at a time. While the store is
 * away, records wait (at most `maxPending`, the oldest dropped past it) and the write is tried again with a
 * bounded backoff; the outage is logged once when it starts and once when it ends. The writer also prunes the
 * store every minute, so retention needs no cron. What a crash loses: the records not yet written (at most
 * `flushMs` of calls, more while the store is away).
 */
import type { HistoryRecord, HistoryStore } from '../../core/history.js';
import { WebhookError } from '../../core/errors.js';
import { errorFields, type WebhookLogger } from '../../core/logger.js';

const MAX_BATCH = 500;
const MAX_BACKOFF_MS = 5_000;
const PRUNE_EVERY_MS = 60_000;

export interface HistoryWriterOptions {
  store: HistoryStore;
  flushMs: number;
  maxPending: number;
  logger: WebhookLogger;
}

export class HistoryWriter {
  readonly #options: HistoryWriterOptions;
  #pending: HistoryRecord[] = [];
  #writing: Promise<void> | undefined;
  /** Calls of the write under way: not written until the store says so, so close() counts them among the unwritten. */
  #inFlight = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #pruneTimer: NodeJS.Timeout;
  #failures = 0;
  #downSince = 0;
  #dropped = 0;
  #closed = false;
  /** Set once close() is over: a record added later has no write to join. */
  #ended = false;
  /** Records still being made (their files read from disk): flush() and close() wait for them. */
  readonly #preparing = new Set<Promise<void>>();

  constructor(options: HistoryWriterOptions) {
    this.#options = options;
    this.#pruneTimer = setInterval(() => { this.#prune(); }, PRUNE_EVERY_MS).unref();
  }

  /** Keeps a finished call: it is written with the next batch. */
  add(record: HistoryRecord): void {
    if (this.#ended) return;
    this.#pending.push(record);
    if (this.#pending.length > this.#options.maxPending) {
      this.#pending.shift();
      this.#dropped += 1;
    }
    this.#schedule(this.#options.flushMs);
  }

  /** A record that joins the batch once `made` settles (a call answered before its files were read): flush() waits for it. */
  preparing(made: Promise<unknown>): void {
    const settled = made.then(() => undefined, () => undefined);
    this.#preparing.add(settled);
    void settled.then(() => { this.#preparing.delete(settled); });
  }

  /** Writes everything waiting now; resolves once written, or rejects with the store's failure. */
  async flush(): Promise<void> {
    while (this.#preparing.size > 0) await Promise.all(this.#preparing);
    while (this.#writing !== undefined) await this.#writing.catch(() => undefined);
    while (this.#pending.length > 0) {
      const before = this.#failures;
      await this.#write();
      if (this.#failures > before) {
        throw new WebhookError('HISTORY_UNAVAILABLE', 'The history store did not take the calls; they are kept in memory and written when it answers.', {
          headers: { 'retry-after': '5' },
        });
      }
    }
  }

  /**
   * Stops the timers after one last write (bounded by `timeoutMs`); what is still waiting then, or still being written
   * (a store that neither answers nor fails in time), is counted lost and logged, and never tried again.
   */
  async close(timeoutMs: number): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#pruneTimer);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs).unref(); });
    await Promise.race([this.flush().catch(() => undefined), gaveUp]);
    clearTimeout(timer);
    this.#ended = true;
    // A write still under way (a store that neither answers nor fails within timeoutMs) holds calls too.
    const lost = this.#pending.length + this.#inFlight;
    this.#pending = [];
    if (lost > 0) this.#options.logger.warn({ lost }, `workflow-webhooks: history: ${lost} call(s) were not written before close()`);
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined || this.#writing !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#write();
    }, delayMs).unref();
  }

  #write(): Promise<void> {
    if (this.#writing !== undefined) return this.#writing;
    if (this.#pending.length === 0) return Promise.resolve();
    const batch = this.#pending.splice(0, MAX_BATCH);
    this.#inFlight = batch.length;
    this.#writing = this.#options.store.append(batch).then(() => {
      if (!this.#ended) this.#recovered();
    }, (error: unknown) => {
      // After close() the batch was told lost already: nothing is tried again, nor logged twice.
      if (this.#ended) return;
      // Put back in front, in order: they are older than anything added meanwhile.
      this.#pending.unshift(...batch);
      if (this.#pending.length > this.#options.maxPending) {
        const over = this.#pending.length - this.#options.maxPending;
        this.#pending.splice(0, over);
        this.#dropped += over;
      }
      this.#failed(error);
    }).finally(() => {
      this.#writing = undefined;
      this.#inFlight = 0;
      // A full batch waiting goes at once: waiting flushMs between batches would cap an instance at MAX_BATCH calls
      // per flushMs (2 500 a second by default), and the backlog past it would grow until maxPending drops calls.
      const nextMs = this.#failures > 0 ? Math.min(MAX_BACKOFF_MS, 100 * 2 ** this.#failures) : this.#pending.length >= MAX_BATCH ? 0 : this.#options.flushMs;
      if (this.#pending.length > 0) this.#schedule(nextMs);
    });
    return this.#writing;
  }

  #failed(error: unknown): void {
    this.#failures += 1;
    if (this.#failures !== 1) return;
    this.#downSince = Date.now();
    this.#options.logger.warn({ ...errorFields(error), pending: this.#pending.length },
      'workflow-webhooks: history: the store did not take a batch of calls; they are kept in memory and written when it answers');
  }

  #recovered(): void {
    if (this.#failures === 0 && this.#dropped === 0) return;
    const downMs = this.#failures === 0 ? 0 : Date.now() - this.#downSince;
    this.#options.logger.warn({ downMs, tries: this.#failures, dropped: this.#dropped },
      `workflow-webhooks: history: the store takes calls again${this.#dropped > 0 ? `; ${this.#dropped} call(s) were dropped meanwhile (history.maxPending)` : ''}`);
    this.#failures = 0;
    this.#dropped = 0;
  }

  #prune(): void {
    this.#options.store.prune().catch((error: unknown) => {
      // The next minute tries again; an outage is already told by the writes.
      if (this.#failures === 0) this.#options.logger.warn(errorFields(error), 'workflow-webhooks: history: the store could not remove calls past its retention');
    });
  }
}
