/**
 * The in-process memory of signed message ids (the memory registry's, and the middleware's own for a registry that
 * offers none): each id until it expires, and never more than a fixed number of ids, so a flood of signed calls
 * cannot grow it without bound (past the bound the oldest ids are forgotten first). A shared registry (Redis)
 * remembers ids for all instances instead.
 */

/** Remembers message ids for a while: true when the id is new (and now remembered), false when seen. */
export interface ReplayMemory {
  remember(key: string, ttlMs: number): boolean | Promise<boolean>;
}

export class InProcessReplayMemory implements ReplayMemory {
  /** Id → expiry (epoch ms), in insertion order: the oldest first. */
  readonly #ids = new Map<string, number>();
  readonly #maxIds: number;

  constructor(maxIds = 100_000) {
    this.#maxIds = maxIds;
  }

  get size(): number {
    return this.#ids.size;
  }

  remember(key: string, ttlMs: number): boolean {
    const now = Date.now();
    const expires = this.#ids.get(key);
    if (expires !== undefined && expires > now) return false;
    this.#ids.delete(key);
    this.#ids.set(key, now + ttlMs);
    this.#sweep(now);
    return true;
  }

  /** Drops expired ids from the oldest end, then the oldest past the bound; a few at a time, per insert. */
  #sweep(now: number): void {
    for (const [key, expires] of this.#ids) {
      if (expires > now && this.#ids.size <= this.#maxIds) break;
      this.#ids.delete(key);
    }
  }
}
