/**
 * History ids: the arrival time in base 36 (9 digits, enough until the year 5188), then a count of this process's
 * calls of that millisecond (16 bits) and 48 random bits, so that ids sort as calls arrived in every store (a string
 * order, no clock per store), calls of one millisecond on one instance in the order they were kept, and a cursor is
 * just an id.
 */
import { randomFillSync } from 'node:crypto';

export const HISTORY_ID = /^[0-9a-z]{9}-[0-9a-f]{16}$/;

/**
 * Random bytes drawn 4 KiB at a time: `randomBytes(8)` per call went into the system's generator each time, 5.2 µs
 * a call on the benchmark's machine against 0.4 µs so (bench/README.md, "History").
 */
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;

function randomHex6(): string {
  if (poolAt + 6 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  poolAt += 6;
  return POOL.toString('hex', poolAt - 6, poolAt);
}

/** Calls kept so far per millisecond of arrival, for the latest milliseconds (calls end, and are kept, out of order). */
const counts = new Map<number, number>();
const COUNTED_MILLISECONDS = 256;

function countOf(ms: number): number {
  const count = counts.get(ms) ?? 0;
  if (count === 0 && counts.size >= COUNTED_MILLISECONDS) counts.delete(counts.keys().next().value as number);
  counts.set(ms, (count + 1) & 0xffff);
  return count;
}

export function historyId(at: number): string {
  const ms = Math.max(0, Math.floor(at));
  return `${ms.toString(36).padStart(9, '0')}-${countOf(ms).toString(16).padStart(4, '0')}${randomHex6()}`;
}

/** The smallest id of a call that arrived at `at` or later: stores compare ids with it to filter by time. */
export function firstIdAt(at: number): string {
  return `${Math.max(0, Math.floor(at)).toString(36).padStart(9, '0')}-`;
}
