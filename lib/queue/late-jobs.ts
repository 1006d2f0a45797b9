/**
 * What a worker does with a job taken after its caller's answer was due: the caller may have been refused 503 while
 * the job was on its way (a slow or restarting store kept it late, or kept it and lost the answer), and then it must
 * not run. Only such a late job is looked at (with a second of leeway for clocks that differ), so the usual job costs
 * nothing. The store settles each late job once: the web instance's refusal mark or the worker's claim, whichever
 * comes first. Right after the store was away the two come back at the same moment, the marks of the calls refused
 * meanwhile as the jobs: a late job taken then is put back for a moment, once, so that a mark on its way is written
 * before the claim.
 */
import type { WebhookJobData } from './job-data.js';
import type { QueueStoreLink } from './store/contract.js';
import { MAX_MARK_PAUSE_MS } from './store/mark-pauses.js';

/** For how long after the store failed this worker a late job is put back before its claim. */
const AFTER_TROUBLE_MS = 10_000;
/** How long it is put back: a web instance's longest pause between attempts at a mark, and a second for round trips. */
export const LATE_PAUSE_MS = MAX_MARK_PAUSE_MS + 1000;
/** The jobs put back remembered, at most: the oldest are forgotten first (such a job is then put back once more). */
const REMEMBERED = 10_000;

export type LateVerdict = 'run' | 'refused' | 'later';

export class LateJobs {
  readonly #link: QueueStoreLink;
  readonly #clock: () => number;
  #troubleAt = Number.NEGATIVE_INFINITY;
  readonly #putBack = new Set<string>();

  constructor(link: QueueStoreLink, clock: () => number = Date.now) {
    this.#link = link;
    this.#clock = clock;
  }

  /** The store failed this worker (BullMQ's error, a statement of ours): it may have been away. */
  trouble(): void {
    this.#troubleAt = this.#clock();
  }

  /** `run`, `refused` (its caller was answered 503: skip it) or `later` (put it back for LATE_PAUSE_MS). */
  async verdict(data: WebhookJobData): Promise<LateVerdict> {
    const now = this.#clock();
    if (data.storeId === undefined || data.answerBy === undefined || now < data.answerBy - 1000) return 'run';
    if (now - this.#troubleAt < AFTER_TROUBLE_MS && !this.#putBack.has(data.storeId)) {
      this.#putBack.add(data.storeId);
      if (this.#putBack.size > REMEMBERED) this.#putBack.delete(this.#putBack.values().next().value as string);
      return 'later';
    }
    this.#putBack.delete(data.storeId);
    try {
      return await this.#link.wasRefused(data.storeId) ? 'refused' : 'run';
    } catch (error) {
      this.trouble();
      throw error;
    }
  }
}
