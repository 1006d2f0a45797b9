/**
 * The arithmetic of the per-call allocation and GC measure: from what `v8.GCProfiler` recorded over a window (every
 * GC with the heap's statistics before and after it) and the heap's used size at the window's two ends, the bytes
 * the program allocated on the JS heap, the bytes scavenges moved out of the young generation (promoted), and the
 * number and cost of each kind of GC. Pure, so the check script (gc-check.ts) runs it on an allocation it knows.
 */

/**
 * The part of a `v8.GCProfiler` record this reads (Node ≥ 18.15). Node names the heap figures in camelCase
 * (`usedHeapSize`); @types/node gives them getHeapStatistics()'s snake_case names, hence the casts of the callers.
 */
export interface GcRecord {
  gcType: string;
  /** Microseconds the GC took on the main thread. */
  cost: number;
  beforeGC: HeapState;
  afterGC: HeapState;
}
interface HeapState {
  heapStatistics: { usedHeapSize: number };
  heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[];
}

export interface GcSummary {
  /** Bytes allocated on the JS heap in the window (Buffer contents live outside it and are not counted). */
  allocated: number;
  /** Bytes that left the young generation in scavenges: objects that outlived their call long enough to be kept. */
  promoted: number;
  scavenges: number;
  markCompacts: number;
  /** Main-thread microseconds in GC, every kind. */
  gcMicros: number;
}

const YOUNG = new Set(['new_space', 'new_large_object_space']);

/** Used bytes outside the young generation: where a scavenge puts what it promotes. */
function oldUsed(state: HeapState): number {
  let young = 0;
  for (const space of state.heapSpaceStatistics) if (YOUNG.has(space.spaceName)) young += space.spaceUsedSize;
  return state.heapStatistics.usedHeapSize - young;
}

/**
 * Between two GCs the used heap only grows by what the program allocates, so the allocation of a window is the sum of
 * each GC's used size before it minus the used size after the GC before (the window's start for the first), plus
 * the growth from the last GC to the window's end.
 */
export function summariseGc(records: readonly GcRecord[], usedAtStart: number, usedAtEnd: number): GcSummary {
  const summary: GcSummary = { allocated: 0, promoted: 0, scavenges: 0, markCompacts: 0, gcMicros: 0 };
  let previous = usedAtStart;
  for (const record of records) {
    summary.allocated += record.beforeGC.heapStatistics.usedHeapSize - previous;
    previous = record.afterGC.heapStatistics.usedHeapSize;
    summary.gcMicros += record.cost;
    if (record.gcType === 'Scavenge' || record.gcType === 'MinorMarkSweep') {
      summary.scavenges += 1;
      summary.promoted += oldUsed(record.afterGC) - oldUsed(record.beforeGC);
    } else if (record.gcType === 'MarkSweepCompact') {
      summary.markCompacts += 1;
    }
  }
  summary.allocated += usedAtEnd - previous;
  return summary;
}
