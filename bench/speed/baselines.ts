/**
 * The pinned older builds of bench/baselines.json: each commit's lib/ built from git with this checkout's tsc into
 * `~/.cache/workflow-webhooks/builds/<commit>` (or `$BENCH_BUILDS_DIR`), once, with this checkout's node_modules
 * linked in (an older build's runtime dependencies are among today's). A commit that is not in the clone or does not
 * build is given with why, never left out silently.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './runner.js';

export interface Baseline { commit: string; reason: string }
/** `entry` is the built package's main module, for the servers' BENCH_BUILD. */
export type BuiltBaseline = Baseline & ({ entry: string } | { notRun: string });

export function readBaselines(): Baseline[] {
  const file = join(ROOT, 'bench', 'baselines.json');
  const { baselines } = JSON.parse(readFileSync(file, 'utf8')) as { baselines: Baseline[] };
  return baselines;
}

/** The build resolves its dependencies through a link to the node_modules of the checkout that runs the bench. */
function linkModules(dir: string): void {
  const link = join(dir, 'node_modules');
  const target = join(ROOT, 'node_modules');
  let current: string | undefined;
  try {
    current = readlinkSync(link);
  } catch {
    current = undefined;
  }
  if (current === target) return;
  rmSync(link, { force: true });
  symlinkSync(target, link, 'dir');
}

const firstLine = (text: string): string => text.trim().split('\n').find((line) => line.trim() !== '')?.trim() ?? '';

export function buildBaseline(baseline: Baseline): BuiltBaseline {
  const git = (...args: string[]): ReturnType<typeof spawnSync> => spawnSync('git', args, { cwd: ROOT, maxBuffer: 512 * 2 ** 20 });
  const resolved = git('rev-parse', '--verify', '--quiet', `${baseline.commit}^{commit}`);
  if (resolved.status !== 0) return { ...baseline, notRun: `commit ${baseline.commit} is not in this clone (git fetch it, or take it out of bench/baselines.json)` };
  const full = resolved.stdout.toString().trim();
  const dir = join(process.env.BENCH_BUILDS_DIR ?? join(homedir(), '.cache', 'workflow-webhooks', 'builds'), full);
  const entry = join(dir, 'dist', 'index.js');
  if (existsSync(entry)) {
    linkModules(dir);
    return { ...baseline, entry };
  }
  process.stderr.write(`building ${baseline.commit} into ${dir} (once) …\n`);
  // Built beside its final place and renamed into it, so an interrupted build is never taken for a finished one.
  const work = `${dir}.building-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const archive = git('archive', '--format=tar', full, 'lib', 'tsconfig.json', 'package.json');
    if (archive.status !== 0) return { ...baseline, notRun: `git archive failed: ${firstLine(archive.stderr.toString())}` };
    const untar = spawnSync('tar', ['-x', '-C', work], { input: archive.stdout as Buffer });
    if (untar.status !== 0) return { ...baseline, notRun: `tar failed: ${firstLine(untar.stderr.toString())}` };
    linkModules(work);
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: work });
    if (tsc.status !== 0) return { ...baseline, notRun: `tsc failed on ${baseline.commit}: ${firstLine(tsc.stdout.toString() + tsc.stderr.toString())}` };
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
    return { ...baseline, entry };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
