/**
 * The speed table's Markdown: req/s per contender and column (medians of the rounds), then the ratios the goals are
 * stated in, each the median of the rounds' own ratios with every round beside it, and whether its goal is met.
 */
import { median } from '../http.js';
import type { BuiltBaseline } from './baselines.js';
import { baselineLabel, LABELS, type NodeRed } from './contenders.js';
import { canPin, fmt, HEADINGS, type Kind, type SpeedSettings } from './runner.js';

/** Each contender's req/s per column, one entry per round, by contender id. */
export type Results = Map<string, { label: string; rates: Partial<Record<Kind, number[]>> }>;

interface Ratio { label: string; over: string; of: string; goal?: number | Record<Kind, number> }

function ratios(baselines: readonly BuiltBaseline[]): Ratio[] {
  return [
    { label: 'middleware on node:http ÷ the limit', over: 'node', of: 'limit', goal: { json: 0.85, form: 0.85, multipart: 0.9 } },
    { label: 'middleware in Express 5 ÷ Express\'s ceiling', over: 'express', of: 'ceiling', goal: 0.9 },
    { label: 'with a 10-field JSON Schema ÷ without, on node:http', over: 'schema', of: 'node', goal: 0.95 },
    // What Express's own cost is made of: its prototype switch alone, then all of it, against the limit.
    { label: 'the limit after Express\'s prototype switch ÷ the limit', over: 'switched', of: 'limit' },
    { label: 'Express\'s ceiling ÷ the limit', over: 'ceiling', of: 'limit' },
    { label: 'Connect in front of the Express app ÷ the middleware in Express 5', over: 'front', of: 'express' },
    { label: 'middleware through middie ÷ Fastify route', over: 'middie', of: 'fastify' },
    { label: 'plugin form ÷ Fastify route', over: 'plugin', of: 'fastify' },
    { label: 'plugin form ÷ middie: what the plugin gains', over: 'plugin', of: 'middie' },
    // An older build over the current one: a regression reads as a ratio above 1.
    ...baselines.flatMap(({ commit }) => [
      { label: `build ${commit} ÷ this build, on node:http`, over: `node@${commit}`, of: 'node' },
      { label: `build ${commit} ÷ this build, in Express 5`, over: `express@${commit}`, of: 'express' },
    ]),
    { label: 'middleware in Express 5 ÷ Express 5 route', over: 'express', of: 'route' },
    { label: 'its run reading every file ÷ Express 5 route (the same work)', over: 'reads', of: 'route' },
    { label: 'middleware in Express 5 ÷ Node-RED', over: 'express', of: 'node-red', goal: 1.1 },
  ];
}

/** The median of the rounds' own ratios: each round compares two servers measured moments, not a run, apart. */
function cell(over: number[] | undefined, of: number[] | undefined, goal: number | undefined): string {
  if (over === undefined || of === undefined || over.length !== of.length || over.length === 0) return '—';
  const each = over.map((rate, round) => rate / (of[round] as number));
  const value = median(each);
  const rounds = `rounds ${each.map((r) => r.toFixed(2)).join(', ')}`;
  return goal === undefined ? `${value.toFixed(2)}× (${rounds})` : `${value.toFixed(2)}× (goal ≥ ${goal}, ${value >= goal ? 'met' : 'not met'}; ${rounds})`;
}

export function report(results: Results, settings: SpeedSettings, notRun: { label: string; why: string }[], baselines: readonly BuiltBaseline[]): string {
  const kinds = settings.kinds;
  const headings = kinds.map((kind) => HEADINGS[kind]).join(' | ');
  const lines = [`${canPin ? 'Servers (every thread) pinned to core 0, autocannon to core 1' : 'Not pinned (no taskset)'}; ${settings.connections} connections, `
    + `${settings.warmup} s warm-up, ${settings.rounds} rounds × ${settings.seconds} s (every other round backwards), medians; `
    + 'a ratio is the median of the rounds\' ratios.', '',
  `| contender | ${headings} |`, `|---|${kinds.map(() => '---:').join('|')}|`];
  for (const { label, rates } of results.values()) {
    lines.push(`| ${label} | ${kinds.map((kind) => (rates[kind] === undefined ? '—' : fmt(median(rates[kind])))).join(' | ')} |`);
  }
  for (const { label, why } of notRun) lines.push(`| ${label} | not run: ${why} |${' |'.repeat(kinds.length - 1)}`);
  lines.push('', `| ratio | ${headings} |`, `|---|${kinds.map(() => '---').join('|')}|`);
  for (const { label, over, of, goal } of ratios(baselines)) {
    const [a, b] = [results.get(over)?.rates, results.get(of)?.rates];
    if (a === undefined || b === undefined || !kinds.some((kind) => a[kind] !== undefined && b[kind] !== undefined)) continue;
    lines.push(`| ${label} | ${kinds.map((kind) => cell(a[kind], b[kind], typeof goal === 'number' ? goal : goal?.[kind])).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The older builds that ran or were meant to, each with why it is pinned. */
export function baselinesList(baselines: readonly BuiltBaseline[]): string {
  return ['Older builds (bench/baselines.json):', '', ...baselines.map((baseline) =>
    `- \`${baseline.commit}\`: ${baseline.reason}${'notRun' in baseline ? ` (not run: ${baseline.notRun})` : ''}`)].join('\n');
}

/** The rows that could not run: older builds that are not in the clone or do not build, and Node-RED. */
export function notRunRows(baselines: readonly BuiltBaseline[], nodeRed: NodeRed | undefined): { label: string; why: string }[] {
  const rows = baselines.flatMap((baseline) => ('notRun' in baseline
    ? (['node', 'express'] as const).map((host) => ({ label: baselineLabel(host, baseline.commit), why: baseline.notRun }))
    : []));
  if (nodeRed !== undefined && 'notRun' in nodeRed) rows.push({ label: LABELS['node-red'] as string, why: nodeRed.notRun });
  return rows;
}
