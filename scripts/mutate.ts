/**
 * `npm run mutate -- [stage ...] [--all-specs] [--concurrency N]`: mutation testing of the request path, one stage
 * folder of lib/webhooks/ at a time (request, guards, body, uploads, payload, run, response, registry, describe, waiting,
 * rate-limit, validate, or `wiring` for the loose files beside them), or `core` for lib/core/; all of them when none is
 * named. `validate` also takes the payload-schema compiler, lib/webhooks/registry/json-schema/ (which `registry` leaves
 * out), with its specs and spec/webhooks/registry/payload-schemas.spec.ts, and gets a fresh test runner per mutant
 * (--maxTestRunnerReuse 1): compiled schemas, patterns and ajv instances are kept in module state, so a runner reused
 * after one mutant would answer the next from the first one's cache. Each stage
 * gets its own StrykerJS run and report in reports/mutation/<stage>.html; at the end a table gives each stage's
 * score, so a weak folder shows at a glance. Each mutant meets the stage's own specs (spec/webhooks/<stage>/,
 * spec/webhooks/*.spec.ts for the wiring, spec/core/ for the core), or with --all-specs every spec under
 * spec/webhooks/ and spec/core/ (hours rather than minutes on two cores).
 * Stryker comes through npx (9.x: Stryker 10 needs Node 22, and its mocha runner takes mocha 11, not the repo's 12),
 * so it is no dependency of the package.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const STAGES = ['core', 'request', 'guards', 'body', 'uploads', 'payload', 'run', 'response', 'registry', 'describe', 'waiting', 'rate-limit', 'validate', 'wiring'];
const STRYKER = ['--yes', '-p', '@stryker-mutator/core@9.6.1', '-p', '@stryker-mutator/mocha-runner@9.6.1', '-p', 'mocha@11.7.5', 'stryker', 'run', 'stryker.config.mjs'];

/** Stryker options a stage needs on top of the shared ones (stryker.config.mjs) and those given on the command line. */
const STAGE_OPTIONS: Record<string, string[]> = { validate: ['--maxTestRunnerReuse', '1'] };

interface MutantResult { status: string }
interface Report { files: Record<string, { mutants: MutantResult[] }> }

/** Killed and timed-out mutants over all that ran or had no test; compile errors and ignored ones do not count. */
export function scoreOf(report: Report): { killed: number; survived: number; noCoverage: number; score: number } {
  let killed = 0;
  let survived = 0;
  let noCoverage = 0;
  for (const file of Object.values(report.files)) {
    for (const { status } of file.mutants) {
      if (status === 'Killed' || status === 'Timeout') killed += 1;
      else if (status === 'Survived') survived += 1;
      else if (status === 'NoCoverage') noCoverage += 1;
    }
  }
  const total = killed + survived + noCoverage;
  return { killed, survived, noCoverage, score: total === 0 ? 1 : killed / total };
}

function main(argv: string[]): number {
  const options: string[] = [];
  const named: string[] = [];
  let allSpecs = false;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg === '--all-specs') allSpecs = true;
    else if (arg.startsWith('--')) options.push(arg, ...(argv[index + 1] !== undefined && !argv[index + 1]?.startsWith('--') ? [argv[++index] as string] : []));
    else named.push(arg);
  }
  const unknown = named.filter((stage) => !STAGES.includes(stage));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown stage ${unknown.join(', ')}; the stages are ${STAGES.join(', ')}.\n`);
    return 2;
  }
  const rows: string[] = [];
  for (const stage of named.length > 0 ? named : STAGES) {
    const run = spawnSync('npx', [...STRYKER, '--ignoreStatic', ...(STAGE_OPTIONS[stage] ?? []), ...options], { stdio: 'inherit', env: { ...process.env, WWH_MUTATE_STAGE: stage, WWH_MUTATE_ALL_SPECS: allSpecs ? '1' : '0' } });
    const file = `reports/mutation/${stage}.json`;
    if (run.status !== 0 || !existsSync(file)) {
      rows.push(`| ${stage} | Stryker failed (exit ${run.status}) | | | |`);
      continue;
    }
    const { killed, survived, noCoverage, score } = scoreOf(JSON.parse(readFileSync(file, 'utf8')) as Report);
    rows.push(`| ${stage} | ${(score * 100).toFixed(1)} % | ${killed} | ${survived} | ${noCoverage} |`);
  }
  process.stdout.write(`\nMutants met ${allSpecs ? 'every spec under spec/webhooks/' : 'their stage\'s own specs'}.\n| stage | score | killed | survived | no test |\n|---|---:|---:|---:|---:|\n${rows.join('\n')}\n`);
  return rows.some((row) => row.includes('failed')) ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
