/**
 * A set of short-lived members (the calls in flight, the bodies being read) kept in the slots of one array, for
 * collections that gain and lose a member with every call for as long as the process runs.
 *
 * Why not a `Set`: V8 rebuilds a Set's hash table as members come and go, and leaves each table it replaced pointing
 * at its successor, still holding the members it had. Once one of those tables is in the old generation, it keeps
 * every later table and every member they held alive through young-generation collections, until the next full
 * collection: under steady load that is every call's objects, promoted and then swept by a mark-compact (measured:
 * 0.75 MB promoted per scavenge instead of 300 bytes, and a mark-compact every ~20 000 calls). A slot is cleared the
 * moment its member leaves, so nothing here outlives its call.
 */
export class SlotSet<T extends object> {
  readonly #slots: (T | undefined)[] = [];
  /** Slots given back, reused before the array grows: it never holds more slots than members at the busiest moment. */
  readonly #free: number[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `member` and returns its slot, which `delete` and `has` take. */
  add(member: T): number {
    const slot = this.#free.pop() ?? this.#slots.length;
    this.#slots[slot] = member;
    this.#size += 1;
    return slot;
  }

  /** Removes `member` from `slot`; false when the slot holds something else (it left already). */
  delete(slot: number, member: T): boolean {
    if (this.#slots[slot] !== member) return false;
    this.#slots[slot] = undefined;
    this.#free.push(slot);
    this.#size -= 1;
    return true;
  }

  has(slot: number, member: T): boolean {
    return this.#slots[slot] === member;
  }

  /** The members now, as a new array: safe to keep while members come and go. */
  members(): T[] {
    const members: T[] = [];
    for (const member of this.#slots) if (member !== undefined) members.push(member);
    return members;
  }

  /** Calls `visit` for each member now; a member added during the visit may or may not be visited. */
  forEach(visit: (member: T) => void): void {
    const slots = this.#slots;
    for (let slot = 0; slot < slots.length; slot += 1) {
      const member = slots[slot];
      if (member !== undefined) visit(member);
    }
  }
}
