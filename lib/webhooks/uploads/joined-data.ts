/**
 * The `data` of a binary entry held in memory. Its bytes stay the chunks they arrived in until `data` is first read,
 * which joins them into one Buffer once; from then on `data` gives that Buffer. A run that never reads the bytes
 * (it answers first, or looks only at the metadata) pays no copy, and an upload allocates half as much memory.
 */

/** Where an entry keeps its bytes: a non-enumerable symbol, so keys, spreads, clones and JSON never see it. */
const HELD = Symbol('workflow-webhooks: bytes held');

/** The chunks until `data` is read, then the joined (or assigned) Buffer. */
interface Held {
  chunks: readonly Buffer[] | undefined;
  size: number;
  data: Buffer | undefined;
}

interface Entry {
  data?: Buffer;
  [HELD]?: Held;
}

function joinOnRead(this: Entry): Buffer | undefined {
  const held = this[HELD] as Held;
  if (held.chunks !== undefined) {
    held.data = Buffer.concat(held.chunks, held.size);
    held.chunks = undefined;
  }
  return held.data;
}

// Assigned before it was read: the new value wins, the chunks are dropped. A frozen entry keeps its data, as a
// frozen object's plain property would.
function assign(this: Entry, value: Buffer | undefined): void {
  if (Object.isFrozen(this)) throw new TypeError("Cannot assign to read only property 'data' of a frozen binary entry");
  const held = this[HELD] as Held;
  held.data = value;
  held.chunks = undefined;
}

// One getter and setter for every entry, so V8 shares the entries' shape (new functions per entry would give each
// entry a shape of its own, which costs more than the copy saves).
const JOIN_ON_READ: PropertyDescriptor = { configurable: true, enumerable: true, get: joinOnRead, set: assign };
const HELD_SLOT: PropertyDescriptor = { configurable: true, enumerable: false, writable: true, value: undefined };

/**
 * The bytes as one Buffer of their own, joined on first read. A single chunk is copied too: it may share memory with
 * other bytes (a `rawBody` node's raw entry and its files are parsed from the same chunks).
 */
export function defineData(target: { data?: Buffer }, chunks: readonly Buffer[], size: number): void {
  if (chunks.length === 0) {
    target.data = Buffer.alloc(0);
    return;
  }
  Object.defineProperty(target, HELD, HELD_SLOT);
  (target as Entry)[HELD] = { chunks, size, data: undefined };
  Object.defineProperty(target, 'data', JOIN_ON_READ);
}
