/**
 * `npm run corpus`: validates every node description of the known platform's own node package (installed outside
 * the repository by install.ts, reused once there), prints the figures, and compares the errors with
 * known-defects.json, the genuine defects that stay errors. Exit 1 when an error appears that is not on the list,
 * or when a listed one no longer appears (the list must say what is true today); 2 when the corpus cannot load.
 * Options: `--out <file>` writes every finding as JSON; `--strict` validates as `strict: true` (figures only).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { validateNodeDescription } from '../../lib/definitions/index.js';
import { loadPackage } from '../../lib/definitions/node-loader.js';
import { compare, summary, type Checked, type KnownDefect } from './figures.js';
import { ensureCorpus, PACKAGE, VERSION } from './install.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const log = (line: string): void => { process.stdout.write(`${line}\n`); };

/** A description as JSON for the cold run: method objects become name lists, RegExps their source. */
function portable(input: unknown): unknown {
  const description = input as Record<string, unknown>;
  const methods = description.methods as Record<string, unknown> | undefined;
  const names = methods === undefined ? undefined
    : Object.fromEntries(Object.entries(methods).map(([kind, group]) => [kind, typeof group === 'object' && group !== null ? Object.keys(group) : []]));
  return JSON.parse(JSON.stringify({ ...description, methods: names }, (_key, value: unknown) => (value instanceof RegExp ? value.source : value))) as unknown;
}

/** Validation from cold in a fresh process: module import, schema compilation and every description. */
function coldRun(inputs: unknown[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'ww-corpus-'));
  try {
    const dump = join(dir, 'descriptions.json');
    writeFileSync(dump, JSON.stringify(inputs.map(portable)));
    const child = spawnSync(process.execPath, ['--conditions=workflow-webhooks-source', '--import', 'tsx', join(here, 'cold.ts'), dump], { encoding: 'utf8' });
    const cold = JSON.parse(child.stdout) as Record<'importMs' | 'validateMs' | 'importCpuMs' | 'validateCpuMs', number>;
    const both = (wall: number, cpu: number): string => `${wall.toFixed(0)} ms (CPU ${cpu.toFixed(0)} ms)`;
    return `Cold, in a fresh process: importing the validator ${both(cold.importMs, cold.importCpuMs)} (TypeScript sources through tsx), `
      + `validating all descriptions the first time, schema compilation included, ${both(cold.validateMs, cold.validateCpuMs)}; `
      + `together ${both(cold.importMs + cold.validateMs, cold.importCpuMs + cold.validateCpuMs)}.`;
  } catch (error) {
    return `Cold run failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const packageDir = ensureCorpus(log);
  let started = performance.now();
  const loaded = await loadPackage(packageDir);
  log(`loaded ${loaded.nodes.length} descriptions of ${PACKAGE}@${VERSION} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const problem of loaded.problems) log(`  cannot load ${relative(packageDir, problem.file)}: ${problem.message}`);
  if (loaded.nodes.length === 0) return 2;
  const strict = args.includes('--strict');
  started = performance.now();
  const checked: Checked[] = loaded.nodes.map((node) => ({ label: relative(packageDir, node.label), ...validateNodeDescription(node.input, { strict }) }));
  const warm = performance.now() - started;
  const timing = `${coldRun(loaded.nodes.map((node) => node.input))} In this process (loaded already): ${warm.toFixed(0)} ms.`;
  log(`\n${summary(checked, timing)}\n`);
  const out = args.indexOf('--out');
  if (out !== -1 && args[out + 1] !== undefined) writeFileSync(args[out + 1] as string, `${JSON.stringify(checked, null, 2)}\n`);
  if (strict) return 0;
  const known = JSON.parse(readFileSync(join(here, 'known-defects.json'), 'utf8')) as KnownDefect[];
  const { unexpected, unexpectedNodes, missing } = compare(checked, known);
  log(`known defects listed: ${known.length}; errors not on the list: ${unexpected.length}; listed but not found: ${missing.length}`);
  unexpected.forEach((error, index) => log(`  NEW   ${unexpectedNodes[index] ?? ''} ${error.path} ${error.code}\n        ${error.message}`));
  for (const defect of missing) log(`  GONE  ${defect.node} ${defect.path} ${defect.code} (${defect.why}): take it off known-defects.json`);
  return unexpected.length > 0 || missing.length > 0 ? 1 : 0;
}

process.exitCode = await main();
