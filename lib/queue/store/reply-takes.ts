/**
 * Stored replies taken from the store in batches, one statement or script at a time. A reply channel can be published
 * on by roles that may not write the store, and every message naming a stored reply costs the web instance a read:
 * taken one by one as the messages come, a flood of such names would hold every connection of its pool. Here a flood
 * costs one read in flight and one batch waiting; past `MAX_WAITING` names a new one is dropped, and its calls look at
 * their jobs, as for a reply lost in transit.
 */

/** Names waiting for the read in flight to end; beyond them a name is dropped. */
const MAX_WAITING = 2000;
/** Names read by one statement or script. */
const BATCH = 500;

/** Reads and removes the stored replies of `names`; answers the text of each one found. */
export type TakeMany = (names: readonly string[]) => Promise<ReadonlyMap<string, string>>;

export class ReplyTakes {
  readonly #takeMany: TakeMany;
  readonly #report: (error: unknown) => void;
  /** Names to read, each with the takes waiting for it, in the order they came. */
  readonly #waiting = new Map<string, Array<(text: string | undefined) => void>>();
  #reading = false;

  /** `report` hears a read that failed (its replies are lost; the calls look at their jobs); it must not throw. */
  constructor(takeMany: TakeMany, report: (error: unknown) => void) {
    this.#takeMany = takeMany;
    this.#report = report;
  }

  /** The stored reply's text, or undefined when it is gone (read already, expired), could not be read, or was dropped. */
  take(name: string): Promise<string | undefined> {
    const takers = this.#waiting.get(name);
    if (takers === undefined && this.#waiting.size >= MAX_WAITING) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      if (takers === undefined) this.#waiting.set(name, [resolve]);
      else takers.push(resolve);
      if (!this.#reading) void this.#read();
    });
  }

  async #read(): Promise<void> {
    this.#reading = true;
    while (this.#waiting.size > 0) {
      const batch: Array<[string, Array<(text: string | undefined) => void>]> = [];
      for (const entry of this.#waiting) {
        batch.push(entry);
        if (batch.length === BATCH) break;
      }
      for (const [name] of batch) this.#waiting.delete(name);
      let found: ReadonlyMap<string, string>;
      try {
        found = await this.#takeMany(batch.map(([name]) => name));
      } catch (error) {
        found = new Map();
        try {
          this.#report(error);
        } catch {
          // The host's logger failed too: the calls look at their jobs all the same.
        }
      }
      for (const [name, takers] of batch) for (const resolve of takers) resolve(found.get(name));
    }
    this.#reading = false;
  }
}
