/**
 * A find's turns given back to the event loop while it reads kept calls in this process: each call's text is parsed
 * here (bodies up to `history.bodyBytes`, sent by callers), and a page may read thousands; the calls the server
 * answers meanwhile wait at most PAUSE_EVERY_MS of that work, not the whole page's.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Longest stretch of reading between two turns of the event loop. */
const PAUSE_EVERY_MS = 10;

export class ScanPauses {
  #since = performance.now();

  /** Whether the reading has held the event loop long enough to give it a turn (checked after each call read). */
  due(): boolean {
    return performance.now() - this.#since >= PAUSE_EVERY_MS;
  }

  /** One turn of the event loop: I/O waiting meanwhile (another call's request) is served first. */
  async pause(): Promise<void> {
    await nextTurn();
    this.#since = performance.now();
  }
}
