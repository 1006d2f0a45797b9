/**
 * History ids: the arrival time in base 36 (9 digits, enough until the year 5188) and 64 random bits, so that ids
 * sort as calls arrived in every store (a string order, no clock per store) and a cursor is just an id.
 */
import { randomFillSync } from 'node:crypto';

export const HISTORY_ID = /^[0-9a-z]{9}-[0-9a-f]{16}$/;

/**
 * Random bytes drawn 4 KiB at a time: `randomBytes(8)` per call went into the system's generator each time, 5.2 µs
 * a call on the benchmark's machine against 0.4 µs so (bench/README.md, "History").
 */
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;

function randomHex8(): string {
  if (poolAt === POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  poolAt += 8;
  return POOL.toString('hex', poolAt - 8, poolAt);
}

export function historyId(at: number): string {
  return `${Math.max(0, Math.floor(at)).toString(36).padStart(9, '0')}-${randomHex8()}`;
}

/** The smallest id of a call that arrived at `at` or later: stores compare ids with it to filter by time. */
export function firstIdAt(at: number): string {
  return `${Math.max(0, Math.floor(at)).toString(36).padStart(9, '0')}-`;
}
