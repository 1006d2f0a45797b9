/**
 * The server's side of the allocation measure (bench/speed/allocation.ts), over IPC: `gc-start` notes the used heap
 * and starts a `v8.GCProfiler`; `gc-stop` stops it and answers `gc-report` with the window's summary
 * (bench/speed/gc-stats.ts) and the process's CPU time over the window (every thread: main, GC helpers, libuv).
 */
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { summariseGc, type GcRecord } from '../speed/gc-stats.js';

export function serveGcProbe(): void {
  let window: { profiler: GCProfiler; usedAtStart: number; cpu: NodeJS.CpuUsage } | undefined;
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'gc-start') {
      // No full GC first: one forced in the middle of the load promotes the calls under way and changes what V8
      // decides afterwards (measured: a build that promotes nothing showed megabytes after a forced GC).
      const profiler = new GCProfiler();
      window = { profiler, usedAtStart: getHeapStatistics().used_heap_size, cpu: process.cpuUsage() };
      profiler.start();
      process.send?.({ type: 'gc-started' });
    } else if (message.type === 'gc-stop' && window !== undefined) {
      const usedAtEnd = getHeapStatistics().used_heap_size;
      const { statistics } = window.profiler.stop() as unknown as { statistics: GcRecord[] };
      const cpu = process.cpuUsage(window.cpu);
      process.send?.({ type: 'gc-report', summary: summariseGc(statistics, window.usedAtStart, usedAtEnd), cpuMicros: cpu.user + cpu.system });
      window = undefined;
    }
  });
}
