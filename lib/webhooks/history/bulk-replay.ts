/**
 * A bulk replay: every kept call a filter matches when it starts, replayed at the rate asked (`perSecond`, at most
 * `concurrency` at once), each through the one-call replay, so each is claimed in the store and runs once. Calls
 * kept after it started (its own replays among them) are not in it, and replays are not replayed again unless the
 * filter names them (`replayOf`). Progress is told on every change; `stop()` starts no more. While the history store
 * does not answer, it waits and tries again, the page or the call it was at (a call refused so ran nothing and was
 * not claimed): a bulk replay outlives a store's restart, as the writer does.
 */
import { randomUUID } from 'node:crypto';
import { toWebhookError } from '../../core/errors.js';
import type {
  BulkReplay, BulkReplayOptions, BulkReplayProgress, HistoryFilter, HistoryPage, ReplayOptions, ReplayResult,
} from '../../core/history.js';

const PAGE = 100;
/** Pauses between tries while the store does not answer: from 250 ms, doubling, to 5 s. */
const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 5_000;

export interface BulkReplaySource {
  find(filter: HistoryFilter, page: { cursor?: string; limit: number }): Promise<HistoryPage>;
  replay(id: string, options: ReplayOptions): Promise<ReplayResult>;
}

export class BulkReplayRun implements BulkReplay {
  readonly id = randomUUID();
  readonly done: Promise<BulkReplayProgress>;
  readonly #progress: BulkReplayProgress;
  readonly #told: (progress: BulkReplayProgress) => void;
  #stopped = false;
  /** Wakes whatever sleeps (the pacing, calls waiting for the store) when stopped. */
  readonly #wakers = new Set<() => void>();

  constructor(source: BulkReplaySource, filter: HistoryFilter, options: Required<Pick<BulkReplayOptions, 'perSecond' | 'concurrency'>> & ReplayOptions,
    told: (progress: BulkReplayProgress) => void) {
    const startedAt = Date.now();
    this.#progress = {
      id: this.id, state: 'running', filter, by: options.by, perSecond: options.perSecond, startedAt,
      matched: 0, replayed: 0, failed: 0, refused: 0, skipped: 0,
    };
    this.#told = told;
    // Only calls that came before it started (up to its own millisecond: `to` is exclusive): its own replays, kept
    // meanwhile, must not feed it.
    const snapshot: HistoryFilter = { ...filter, to: Math.min(filter.to ?? startedAt + 1, startedAt + 1) };
    this.done = this.#run(source, snapshot, options);
  }

  progress(): BulkReplayProgress {
    return { ...this.#progress };
  }

  stop(): void {
    this.#stopped = true;
    for (const wake of this.#wakers) wake();
  }

  async #run(source: BulkReplaySource, filter: HistoryFilter, options: Required<Pick<BulkReplayOptions, 'perSecond' | 'concurrency'>> & ReplayOptions): Promise<BulkReplayProgress> {
    const running = new Set<Promise<void>>();
    const gapMs = 1000 / options.perSecond;
    let nextAt = Date.now();
    let cursor: string | undefined;
    try {
      do {
        const at = cursor;
        const page = await this.#untilAnswered(() => source.find(filter, at === undefined ? { limit: PAGE } : { cursor: at, limit: PAGE }));
        if (page === undefined) break;
        for (const entry of page.entries) {
          if (this.#stopped) break;
          if (entry.replayOf !== undefined && filter.replayOf === undefined) continue;
          this.#progress.matched += 1;
          while (running.size >= options.concurrency) await Promise.race(running);
          await this.#sleep(nextAt - Date.now());
          if (this.#stopped) break;
          nextAt = Math.max(nextAt + gapMs, Date.now());
          const one = this.#replayOne(source, entry.id, options).finally(() => { running.delete(one); });
          running.add(one);
        }
        cursor = page.next;
      } while (cursor !== undefined && !this.#stopped);
    } catch (error) {
      this.#progress.error = toWebhookError(error).message;
    }
    await Promise.all(running);
    this.#progress.state = this.#stopped ? 'stopped' : 'done';
    this.#progress.endedAt = Date.now();
    this.#tell();
    return this.progress();
  }

  async #replayOne(source: BulkReplaySource, id: string, options: ReplayOptions): Promise<void> {
    try {
      const result = await this.#untilAnswered(() => source.replay(id, { by: options.by, again: options.again === true }));
      // Stopped while the store was away: this call was neither run nor counted.
      if (result === undefined) return;
      if (result.code === undefined && result.status !== undefined && result.status < 400) this.#progress.replayed += 1;
      else this.#progress.failed += 1;
    } catch (error) {
      const { code } = toWebhookError(error);
      if (code === 'HISTORY_REPLAYED_BEFORE') this.#progress.skipped += 1;
      else this.#progress.refused += 1;
    }
    this.#tell();
  }

  /**
   * The store's answer, tried again after a pause for as long as it does not answer (HISTORY_UNAVAILABLE), telling
   * why it waits meanwhile; undefined once stopped. Any other failure is the caller's.
   */
  async #untilAnswered<T>(attempt: () => Promise<T>): Promise<T | undefined> {
    for (let pauseMs = FIRST_PAUSE_MS; ; pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS)) {
      try {
        const answer = await attempt();
        if (this.#progress.error !== undefined) {
          delete this.#progress.error;
          this.#tell();
        }
        return answer;
      } catch (error) {
        const failure = toWebhookError(error);
        if (failure.code !== 'HISTORY_UNAVAILABLE') throw error;
        if (this.#progress.error === undefined) {
          this.#progress.error = failure.message;
          this.#tell();
        }
      }
      if (this.#stopped) return undefined;
      await this.#sleep(pauseMs);
      if (this.#stopped) return undefined;
    }
  }

  #tell(): void {
    try {
      this.#told(this.progress());
    } catch {
      // A listener's failure is its own.
    }
  }

  /** Waits `ms`, or until stopped. */
  #sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#wakers.add(wake);
    });
  }
}
