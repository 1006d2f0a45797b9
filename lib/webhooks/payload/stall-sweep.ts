/**
 * Stalled bodies, found by one sweep per timeout length shared by every body being read (whole bodies, uploads,
 * inflated and raw binary bodies), instead of a timer per call. Each body registers here and says when its last
 * byte came; the sweep tells it once nothing came for the timeout.
 */

/** A body being read: when its last byte came, and how to end it. */
export interface Reading {
  lastByte: number;
  /** Brings `lastByte` up to date at each tick (bodies are watched without a listener per chunk). */
  refresh(now: number): void;
  stall(): void;
}

/**
 * The sweep runs every quarter of the timeout (at most a second), so a stall is answered within a quarter of the
 * timeout after it is due. It stops at the first tick that finds nothing being read (not at once, so that
 * back-to-back calls do not restart it).
 */
const sweeps = new Map<number, { readings: Set<Reading>; timer: NodeJS.Timeout }>();

/** Watches `reading` until the returned function is called. */
export function watchStall(timeoutMs: number, reading: Reading): () => void {
  let sweep = sweeps.get(timeoutMs);
  if (sweep === undefined) {
    const readings = new Set<Reading>();
    const timer = setInterval(() => {
      if (readings.size === 0) {
        clearInterval(timer);
        sweeps.delete(timeoutMs);
        return;
      }
      const now = Date.now();
      for (const each of readings) {
        each.refresh(now);
        if (now - each.lastByte >= timeoutMs) each.stall();
      }
    }, Math.max(10, Math.min(1000, timeoutMs / 4)));
    timer.unref();
    sweep = { readings, timer };
    sweeps.set(timeoutMs, sweep);
  }
  const { readings } = sweep;
  readings.add(reading);
  return () => {
    readings.delete(reading);
  };
}
