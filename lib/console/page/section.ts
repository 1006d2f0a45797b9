/**
 * What every section of the console (a tab of the page) is to the page around it: an element to show, told when it
 * is shown and what the address says after its name, and handed the server's events and the stream's reconnection.
 */
import type { ConsoleApi } from './api.js';
import type { ConsoleEvent, ConsoleOverview } from '../protocol.js';

export interface ConsoleContext {
  api: ConsoleApi;
  overview: ConsoleOverview;
}

export interface Section {
  element: HTMLElement;
  /** The section is shown (again); `argument` is what follows its name in the address (`#listen/orders`). */
  show(argument: string | undefined): void;
  /** Every event of the page's one stream, shown or not. */
  event?(event: ConsoleEvent): void;
  /** The stream is back after a break: whatever it would have said meanwhile is loaded again. */
  reconnected?(): void;
}

/** Runs `load` now, or once more after the load under way, however often it is asked for meanwhile. */
export function coalesced(load: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  const run = async (): Promise<void> => {
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await load();
      } while (again);
    })().finally(() => { running = undefined; });
    return running;
  };
  return run;
}

/**
 * Loads a section's data the first time it is shown, and never on showing it again: from then on its events keep it
 * current. `shown()` says whether that happened yet (events before it are for data not loaded).
 */
export function firstShow(load: () => Promise<void>): { show: () => void; shown: () => boolean } {
  let shown = false;
  return {
    show: () => {
      if (shown) return;
      shown = true;
      void load();
    },
    shown: () => shown,
  };
}
