/**
 * `npm run bench -- speed`: the side-by-side speed table (the limit and Express's ceiling, this middleware on
 * node:http, in Express 5 and in Fastify 5, older builds of it, the Express and Fastify routes, Node-RED) and the
 * per-call allocation and GC measure of the middleware contenders; `npm run bench -- alloc` runs only the latter.
 * The parts: speed/contenders.ts (who runs), speed/runner.ts (how), speed/report.ts and speed/allocation.ts (the
 * tables), speed/baselines.ts (the older builds of bench/baselines.json).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeRedDir } from './node-red.js';
import { allocationReport, measureAllocation, type AllocationRow, type AllocationSettings } from './speed/allocation.js';
import { buildBaseline, readBaselines, type BuiltBaseline } from './speed/baselines.js';
import { contenders, selection, type NodeRed } from './speed/contenders.js';
import { baselinesList, notRunRows, report, type Results } from './speed/report.js';
import { ensureBuild, KINDS, loads, measure, type Kind, type SpeedSettings } from './speed/runner.js';

/** The columns to run: all, or those named in a comma list (`BENCH_KINDS=multipart`); an unknown name is an error. */
export function speedKinds(list: string | undefined): Kind[] {
  if (list === undefined || list === '') return [...KINDS];
  const named = list.split(',').map((name) => name.trim());
  const unknown = named.filter((name) => !(KINDS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_KINDS: unknown ${unknown.join(', ')}; the columns are ${KINDS.join(', ')}`);
  return KINDS.filter((kind) => named.includes(kind));
}

export interface SpeedRun {
  throughput: SpeedSettings | undefined;
  /** undefined: no allocation measure (BENCH_ALLOC=0). */
  allocation: AllocationSettings | undefined;
  kinds: readonly Kind[];
  /** BENCH_CONTENDERS. */
  contenders: string | undefined;
}

export async function benchSpeed(run: SpeedRun): Promise<string> {
  ensureBuild();
  const pinned = readBaselines();
  const chosen = selection(run.contenders, pinned);
  // Only what runs is built or installed.
  const baselines: BuiltBaseline[] = pinned.filter(({ commit }) => chosen === undefined || chosen.has(`node@${commit}`) || chosen.has(`express@${commit}`))
    .map(buildBaseline);
  const nodeRed: NodeRed | undefined = run.throughput !== undefined && (chosen === undefined || chosen.has('node-red')) ? nodeRedDir() : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'ww-speed-'));
  const sections: string[] = [];
  try {
    const bodies = loads(dir);
    const list = (kind: Kind): ReturnType<typeof contenders> => contenders(kind, nodeRed ?? { notRun: 'not selected' }, baselines, chosen);
    if (run.throughput !== undefined) {
      const results: Results = new Map();
      for (const kind of run.kinds) {
        const running = list(kind);
        const samples = await measure(running, bodies[kind], kind, run.throughput);
        for (const { id, label } of running) results.set(id, { label, rates: { ...results.get(id)?.rates, [kind]: samples.get(label) ?? [] } });
      }
      // Rows in running order (multipart's list holds every contender; a row of one column only would come last).
      const order = list('multipart').map(({ id }) => id);
      const rows: Results = new Map([...results].sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)));
      sections.push(report(rows, run.throughput, notRunRows(baselines, nodeRed), baselines));
    }
    if (run.allocation !== undefined) {
      const rows: AllocationRow[] = [];
      for (const kind of run.kinds) {
        for (const contender of list(kind).filter(({ allocation }) => allocation)) rows.push(await measureAllocation(contender, bodies[kind], kind, run.allocation));
      }
      sections.push(`### Per-call allocation and GC\n\n${allocationReport(rows, run.allocation)}`);
    }
    if (baselines.length > 0) sections.push(baselinesList(baselines));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return sections.join('\n\n');
}
