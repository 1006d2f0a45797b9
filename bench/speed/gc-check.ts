/**
 * Checks the arithmetic of gc-stats.ts on allocations whose size is known: `node --expose-gc --import tsx
 * bench/speed/gc-check.ts`. Exits 1 when a figure is off.
 *
 * `new Array(1000)` is a JSArray (map, properties, elements, length: 4 tagged words) and a FixedArray (map, length
 * and 1000 slots), 1006 tagged words; a word is 8 bytes, 4 with pointer compression (which Node's builds leave off).
 * Kept in a global so the optimiser cannot drop it. The second phase keeps every tenth array for 20 000 iterations,
 * far longer than a scavenge: those are promoted, a tenth of what is allocated, and old space grows to mark-compacts.
 */
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';
import { summariseGc, type GcRecord } from './gc-stats.js';

const WORD = (process.config.variables as { v8_enable_pointer_compression?: number }).v8_enable_pointer_compression ? 4 : 8;
const EXPECTED = 1006 * WORD;
const N = 200_000;
let sink: unknown[] = [];
const ring: unknown[][] = new Array(2000).fill(null);

async function window(body: () => void): Promise<ReturnType<typeof summariseGc> & { observedMicros: number }> {
  globalThis.gc?.();
  // The gc performance entry of that full GC is delivered later: let it pass before observing.
  await new Promise((resolve) => setTimeout(resolve, 50));
  let observedMicros = 0;
  const observer = new PerformanceObserver((list) => { for (const entry of list.getEntries()) observedMicros += entry.duration * 1000; });
  observer.observe({ entryTypes: ['gc'] });
  const profiler = new GCProfiler();
  const usedAtStart = getHeapStatistics().used_heap_size;
  profiler.start();
  body();
  const usedAtEnd = getHeapStatistics().used_heap_size;
  const records = (profiler.stop() as unknown as { statistics: GcRecord[] }).statistics;
  // gc performance entries are delivered after the loop, not during it.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return { ...summariseGc(records, usedAtStart, usedAtEnd), observedMicros };
}

const shortLived = await window(() => { for (let i = 0; i < N; i += 1) sink = new Array(1000); });
const kept = await window(() => {
  for (let i = 0; i < N; i += 1) {
    sink = new Array(1000);
    if (i % 10 === 0) ring[(i / 10) % ring.length] = sink;
  }
});

let failed = false;
/** Within `tolerance` of `expected` (a fraction of it; of `scale` when expected is 0). */
const check = (what: string, value: number, expected: number, tolerance: number, scale = expected): void => {
  const ok = Math.abs(value - expected) <= tolerance * scale;
  if (!ok) failed = true;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${what}: ${value.toFixed(1)} (expected ${expected.toFixed(1)} ± ${(tolerance * scale).toFixed(1)})\n`);
};
for (const [name, result] of [['short-lived', shortLived], ['every tenth kept', kept]] as const) {
  process.stdout.write(`${name}: ${result.scavenges} scavenges, ${result.markCompacts} mark-compacts, GC ${(result.gcMicros / 1000).toFixed(1)} ms ` +
    `(PerformanceObserver: ${(result.observedMicros / 1000).toFixed(1)} ms)\n`);
  check(`${name}: bytes allocated per iteration`, result.allocated / N, EXPECTED, 0.01);
}
check('short-lived: bytes promoted per iteration', shortLived.promoted / N, 0, 0.01, EXPECTED);
check('every tenth kept: bytes promoted per iteration', kept.promoted / N, EXPECTED / 10, 0.05);
if (kept.markCompacts === 0) { failed = true; process.stdout.write('FAIL every tenth kept: no mark-compact\n'); }
// The gc performance entries time the same pauses, and the profiler's own reading of the heap's statistics on top
// (tens of µs per GC here): allow 10 % and 60 µs per GC.
for (const [name, result] of [['short-lived', shortLived], ['every tenth kept', kept]] as const) {
  const gcs = result.scavenges + result.markCompacts;
  const slack = 0.1 * result.observedMicros + 60 * gcs;
  check(`${name}: GC µs, profiler against PerformanceObserver`, result.gcMicros, result.observedMicros, slack / result.observedMicros);
}
process.exitCode = failed ? 1 : 0;
