/**
 * The per-call allocation and GC measure of the middleware contenders (this build and the older ones, on node:http,
 * in Express and in Fastify): each server alone, pinned as in the speed table, takes a warm-up, then a window of a
 * fixed number of calls (autocannon `-a`, 10 connections) during which it runs a `v8.GCProfiler`
 * (servers/gc-probe.ts). Bytes allocated and promoted per call and GCs per 100 000 calls hardly depend on how busy the
 * machine is, so a build that keeps objects past their call shows here even when req/s are noise.
 */
import type { Load } from '../http.js';
import { stop } from '../http.js';
import type { GcSummary } from './gc-stats.js';
import { fmt, HEADINGS, load, reply, start, type Contender, type Kind } from './runner.js';

export interface AllocationSettings { calls: number; warmup: number; connections: number }
export interface AllocationRow { kind: Kind; label: string; calls: number; summary: GcSummary; cpuMicros: number }

export async function measureAllocation(contender: Contender, body: Load, kind: Kind, settings: AllocationSettings): Promise<AllocationRow> {
  const server = await start(contender);
  try {
    if (settings.warmup > 0) await load(server, body, { amount: settings.warmup }, settings.connections);
    const started = reply(server.child, 'gc-started', contender.label);
    server.child.send({ type: 'gc-start' });
    await started;
    const { ok } = await load(server, body, { amount: settings.calls }, settings.connections);
    const reported = reply<{ summary: GcSummary; cpuMicros: number }>(server.child, 'gc-report', contender.label);
    server.child.send({ type: 'gc-stop' });
    const { summary, cpuMicros } = await reported;
    if (ok !== settings.calls) throw new Error(`${contender.label}: ${ok} answers 2xx of ${settings.calls} calls`);
    const row = { kind, label: contender.label, calls: ok, summary, cpuMicros };
    process.stderr.write(`${kind} allocation: ${contender.label}: ${cells(row).join(', ')}\n`);
    return row;
  } finally {
    await stop(server.child);
  }
}

function cells({ calls, summary, cpuMicros }: AllocationRow): string[] {
  const per100k = (count: number): string => (count * 100_000 / calls).toFixed(1);
  return [
    fmt(summary.allocated / calls),
    fmt(summary.promoted / calls),
    summary.scavenges === 0 ? '—' : fmt(summary.promoted / summary.scavenges),
    per100k(summary.scavenges),
    per100k(summary.markCompacts),
    (summary.gcMicros / calls).toFixed(2),
    (cpuMicros / calls).toFixed(1),
  ];
}

export function allocationReport(rows: AllocationRow[], settings: AllocationSettings): string {
  const lines = [`Each server alone, pinned as above: ${fmt(settings.warmup)} calls of warm-up, then ${fmt(settings.calls)} calls `
    + `(${settings.connections} connections) under v8.GCProfiler. Bytes are the JS heap's (Buffer contents, bodies and file bytes, live `
    + 'outside it); GC µs is the main thread\'s pause; CPU µs is the server process\'s, every thread, over the same calls.', '',
  '| column | contender | B allocated per call | B promoted per call | B promoted per scavenge | scavenges per 100 000 | mark-compacts per 100 000 | GC µs per call | CPU µs per call |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const row of rows) lines.push(`| ${HEADINGS[row.kind]} | ${row.label} | ${cells(row).join(' | ')} |`);
  return lines.join('\n');
}
