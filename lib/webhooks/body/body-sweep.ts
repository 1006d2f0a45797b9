/**
 * One sweep per tick length, shared by every body being read (whole bodies, uploads, inflated and raw binary
 * bodies), instead of a timer per call: at each tick each body looks at its progress and ends itself when it has
 * stalled or fallen below the minimum rate. Nothing of a call stays here once its body is in (a slot set, not a Set:
 * see ../../core/slot-set.ts).
 */
import { SlotSet } from '../../core/slot-set.js';

/** A body being read: looks at its progress at each tick. */
export interface Reading {
  tick(now: number): void;
}

/**
 * A sweep stops at the first tick that finds nothing being read (not at once, so that back-to-back calls do not
 * restart it).
 */
const sweeps = new Map<number, { readings: SlotSet<Reading>; timer: NodeJS.Timeout }>();

/** Ticks `reading` every `intervalMs` until unwatchBody() is given the returned slot. */
export function watchBody(intervalMs: number, reading: Reading): number {
  let sweep = sweeps.get(intervalMs);
  if (sweep === undefined) {
    const readings = new SlotSet<Reading>();
    const timer = setInterval(() => {
      if (readings.size === 0) {
        clearInterval(timer);
        sweeps.delete(intervalMs);
        return;
      }
      const now = Date.now();
      readings.forEach((each) => each.tick(now));
    }, intervalMs);
    timer.unref();
    sweep = { readings, timer };
    sweeps.set(intervalMs, sweep);
  }
  return sweep.readings.add(reading);
}

/** Stops ticking `reading` (its sweep goes on while it lives: a reading is in it). */
export function unwatchBody(intervalMs: number, slot: number, reading: Reading): void {
  sweeps.get(intervalMs)?.readings.delete(slot, reading);
}
