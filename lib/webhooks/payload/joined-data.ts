/**
 * The `data` of a binary entry held in memory. Its bytes stay the chunks they arrived in until `data` is first read,
 * which joins them into one Buffer once; from then on `data` is a plain property. A run that never reads the bytes
 * (it answers first, or looks only at the metadata) pays no copy, and an upload allocates half as much memory.
 */

/** Where an entry keeps its chunks until `data` is read: a symbol, so keys, spreads, clones and JSON never see it. */
const CHUNKS = Symbol('workflow-webhooks: chunks not yet joined');

interface Entry {
  data?: Buffer;
  [CHUNKS]?: { chunks: readonly Buffer[]; size: number } | undefined;
}

function joinOnRead(this: Entry): Buffer {
  const held = this[CHUNKS] as { chunks: readonly Buffer[]; size: number };
  const data = Buffer.concat(held.chunks, held.size);
  settle(this, data);
  return data;
}

// Assigned before it was read: the new value wins, the chunks are dropped.
function assign(this: Entry, value: Buffer | undefined): void {
  settle(this, value);
}

// One getter and setter for every entry, so V8 shares the entries' shape (new functions per entry would give each
// entry a shape of its own, which costs more than the copy saves).
const JOIN_ON_READ: PropertyDescriptor = { configurable: true, enumerable: true, get: joinOnRead, set: assign };
const CHUNKS_SLOT: PropertyDescriptor = { configurable: true, enumerable: false, writable: true, value: undefined };

/**
 * The bytes as one Buffer of their own, joined on first read. A single chunk is copied too: it may share memory with
 * other bytes (a `rawBody` node's raw entry and its files are parsed from the same chunks).
 */
export function defineData(target: { data?: Buffer }, chunks: readonly Buffer[], size: number): void {
  if (chunks.length === 0) {
    target.data = Buffer.alloc(0);
    return;
  }
  Object.defineProperty(target, CHUNKS, CHUNKS_SLOT);
  (target as Entry)[CHUNKS] = { chunks, size };
  Object.defineProperty(target, 'data', JOIN_ON_READ);
}

function settle(target: Entry, value: Buffer | undefined): void {
  Object.defineProperty(target, 'data', { configurable: true, enumerable: true, writable: true, value });
  target[CHUNKS] = undefined;
}
