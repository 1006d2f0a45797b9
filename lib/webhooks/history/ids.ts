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

/**
 * Two hex digits per byte, and two base-36 digits per number below 36², looked up: `toString(radix)` of a number is
 * slow in V8 (a time's 9 base-36 digits cost 0.3 µs; the whole id now 0.12 µs, from 0.5).
 */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const BASE36 = Array.from({ length: 36 * 36 }, (_, pair) => pair.toString(36).padStart(2, '0'));

function randomHex6(): string {
  if (poolAt + 6 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += 6;
  return `${HEX[POOL[at] as number]}${HEX[POOL[at + 1] as number]}${HEX[POOL[at + 2] as number]}${HEX[POOL[at + 3] as number]}${HEX[POOL[at + 4] as number]}${HEX[POOL[at + 5] as number]}`;
}

/** The base-36 digits above a time's last four, for the latest time seen (they change every 36⁴ ms, 28 minutes). */
let highOf = -1;
let highDigits = '';

/** A time in ms as 9 base-36 digits. */
function base36(ms: number): string {
  const high = Math.floor(ms / 1_679_616);
  if (high !== highOf) {
    highOf = high;
    highDigits = high.toString(36).padStart(5, '0');
  }
  const low = ms - high * 1_679_616;
  const upper = Math.floor(low / 1296);
  return `${highDigits}${BASE36[upper] as string}${BASE36[low - upper * 1296] as string}`;
}

/**
 * Calls kept so far per millisecond of arrival (calls end, and are kept, out of order), for the latest 4 096 ms: a
 * slot per millisecond modulo 4 096, taken over by a later one. A Map of the latest 256 milliseconds seen cost about
 * 1 µs a call at 1 000 calls a second (a time as a key is a heap number, and every call added and removed one).
 */
const COUNTED_MILLISECONDS = 4096;
const countedMs = new Float64Array(COUNTED_MILLISECONDS).fill(-1);
const counts = new Uint16Array(COUNTED_MILLISECONDS);

function countOf(ms: number): number {
  const slot = ms % COUNTED_MILLISECONDS;
  if (countedMs[slot] !== ms) {
    countedMs[slot] = ms;
    counts[slot] = 0;
  }
  const count = counts[slot] as number;
  // Uint16Array wraps 0xffff + 1 to 0, as the Map's count did with `& 0xffff`.
  counts[slot] = count + 1;
  return count;
}

export function historyId(at: number): string {
  const ms = Math.max(0, Math.floor(at));
  const count = countOf(ms);
  return `${base36(ms)}-${HEX[count >> 8] as string}${HEX[count & 0xff] as string}${randomHex6()}`;
}

/** The smallest id of a call that arrived at `at` or later: stores compare ids with it to filter by time. */
export function firstIdAt(at: number): string {
  return `${Math.max(0, Math.floor(at)).toString(36).padStart(9, '0')}-`;
}
