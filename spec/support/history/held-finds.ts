/**
 * A real history store whose finds can be held back: everything goes to the store underneath, but while held, a
 * find waits until released. It lets a spec put a call into history after a bulk replay began and before it read
 * its first page, which on an idle machine is a window of a millisecond.
 */
import type { HistoryStore, HistoryStorePage, HistoryStoreQuery } from '../../../lib/index.js';

export interface HeldFinds {
  readonly store: HistoryStore;
  /** Finds from now on wait until `release()`; resolves with the first one that waits. */
  hold(): { waiting: Promise<void>; release(): void };
}

export function holdingFinds(inner: HistoryStore): HeldFinds {
  let gate: Promise<void> | undefined;
  let reached: (() => void) | undefined;
  const store: HistoryStore = {
    get retention() { return inner.retention; },
    append: (records) => inner.append(records),
    get: (id) => inner.get(id),
    async find(query: HistoryStoreQuery): Promise<HistoryStorePage> {
      if (gate !== undefined) {
        reached?.();
        await gate;
      }
      return inner.find(query);
    },
    claimReplay: (id, again) => inner.claimReplay(id, again),
    giveBackReplay: (id) => inner.giveBackReplay(id),
    prune: (now) => inner.prune(now),
    close: async () => { await inner.close?.(); },
  };
  return {
    store,
    hold() {
      let release!: () => void;
      gate = new Promise((resolve) => { release = resolve; });
      const waiting = new Promise<void>((resolve) => { reached = resolve; });
      return { waiting, release: () => { gate = undefined; reached = undefined; release(); } };
    },
  };
}
