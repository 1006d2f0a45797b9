/**
 * `npm run bench -- schemas`: what checking a body against a payload schema costs per call, in one process.
 * 1. The speed bench's 10-field ORDER_SCHEMA (servers/order-schema.ts) compiled by this checkout's compiler
 *    (json-schema/compile.ts: RE2 patterns, a budget charged by every subschema, first mismatch only) and by the
 *    compiler of commit b38d9c9 (ajv with allErrors, V8 RegExp behind a shape filter), that commit's two files taken
 *    from git into a folder of os.tmpdir() at run time; ns per validation of the bench's 72-byte body, of the same
 *    body with an email (the schema's one pattern runs) and of a refused body.
 * 2. RE2 (patterns.ts's `linearPattern`, charged to a budget as a call is) against V8's `new RegExp(p, 'u')` on
 *    patterns payload schemas commonly hold, over strings that match and strings that do not.
 * Each measure: batches of calls sized to last about BENCH_SCHEMA_BATCH_MS (40) ms, a warm-up batch, then
 * BENCH_SCHEMA_ROUNDS (9) rounds that alternate the contenders (every other round backwards); the median of the rounds.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { JsonSchema } from '../lib/core/schemas.js';
import { ValidationBudget, withinBudget } from '../lib/webhooks/registry/json-schema/budget.js';
import { compileJsonSchema } from '../lib/webhooks/registry/json-schema/compile.js';
import { linearPattern } from '../lib/webhooks/registry/json-schema/patterns.js';
import { ORDER_BODY, ORDER_SCHEMA } from './servers/order-schema.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The commit before RE2 and the budget: its compiler is the "before" of the first table. */
export const OLD_COMMIT = 'b38d9c9';
const ROUNDS = Number(process.env.BENCH_SCHEMA_ROUNDS ?? 9);
const BATCH_MS = Number(process.env.BENCH_SCHEMA_BATCH_MS ?? 40);

type Check = ((data: unknown) => boolean) & { errors?: readonly unknown[] | null | undefined };
type Compile = (schema: JsonSchema, coerce: boolean) => Check;

/** Something measured: `run(n)` does n calls and returns a number that depends on their results (so none is dropped). */
interface Subject { name: string; run: (calls: number) => number }

let sink = 0;

function timeBatch(subject: Subject, calls: number): number {
  const started = process.hrtime.bigint();
  sink += subject.run(calls);
  return Number(process.hrtime.bigint() - started);
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * ns per call of each subject, every round: batches sized to about BATCH_MS (the sizing doubles as warm-up), one more
 * batch of warm-up, then ROUNDS rounds alternating the subjects.
 */
function measure(subjects: readonly Subject[]): number[][] {
  const sizes = subjects.map((subject) => {
    let calls = 64;
    while (timeBatch(subject, calls) < BATCH_MS * 1e6 / 4) calls *= 2;
    calls = Math.max(1, Math.round(calls * 4 * (BATCH_MS * 1e6) / timeBatch(subject, calls * 4)));
    timeBatch(subject, calls);
    return calls;
  });
  const perCall: number[][] = subjects.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = subjects.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      const calls = sizes[index] as number;
      (perCall[index] as number[]).push(timeBatch(subjects[index] as Subject, calls) / calls);
    }
  }
  return perCall;
}

/** Commit b38d9c9's compiler, from git into a folder of os.tmpdir(): no line of it is kept in the repository. */
async function oldCompiler(): Promise<Compile> {
  const dir = mkdtempSync(join(tmpdir(), `schema-cost-${OLD_COMMIT}-`));
  try {
    const show = (path: string): string => {
      const shown = spawnSync('git', ['show', `${OLD_COMMIT}:${path}`], { cwd: ROOT, encoding: 'utf8' });
      if (shown.status !== 0) throw new Error(`git show ${OLD_COMMIT}:${path} failed: ${shown.stderr.trim()}`);
      return shown.stdout;
    };
    const compiler = show('lib/webhooks/registry/json-schemas.ts');
    const typeImport = "import type { JsonSchema } from '../../core/schemas.js';";
    const fromRepository = 'createRequire(import.meta.url)';
    if (!compiler.includes(typeImport) || !compiler.includes(fromRepository)) throw new Error(`${OLD_COMMIT}'s json-schemas.ts is not the file this bench expects`);
    // Its one relative import is of a type (dropped: the schema's shape is all it was for), and ajv is required from
    // this checkout's node_modules rather than from next to the temp folder.
    const adjusted = compiler
      .replace(typeImport, 'type JsonSchema = boolean | { $schema?: unknown; [key: string]: unknown };')
      .replace(fromRepository, `createRequire(${JSON.stringify(join(ROOT, 'package.json'))})`);
    writeFileSync(join(dir, 'json-schemas.ts'), adjusted);
    writeFileSync(join(dir, 'schema-patterns.ts'), show('lib/webhooks/registry/schema-patterns.ts'));
    const loaded = await import(pathToFileURL(join(dir, 'json-schemas.ts')).href) as { compileJsonSchema: Compile };
    return loaded.compileJsonSchema;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const BODIES: readonly { label: string; text: string; valid: boolean }[] = [
  { label: 'the speed bench\'s body (72 B, valid)', text: ORDER_BODY, valid: true },
  { label: 'the same with `customer.email` (valid; the schema\'s one pattern runs)', text: '{"order":1234,"items":[{"sku":"tea","qty":2}],"customer":{"name":"Ada","email":"ada@example.com"}}', valid: true },
  { label: 'refused at three places (`order` 0, `qty` 0, `name` empty)', text: '{"order":0,"items":[{"sku":"tea","qty":0}],"customer":{"name":""}}', valid: false },
];
/** Parsed copies checked in turn, as calls bring bodies of their own. */
const COPIES = 256;

function validationSubject(name: string, check: Check, text: string, valid: boolean): Subject {
  const copies = Array.from({ length: COPIES }, () => JSON.parse(text) as unknown);
  for (const copy of copies) {
    if (check(copy) !== valid) throw new Error(`${name}: ${text} was ${valid ? 'refused' : 'accepted'}`);
    if (!valid && (check.errors?.length ?? 0) === 0) throw new Error(`${name}: ${text} was refused without a place`);
  }
  return {
    name,
    run: (calls) => {
      let seen = 0;
      for (let i = 0; i < calls; i++) seen += check(copies[i & (COPIES - 1)]) ? 1 : check.errors?.length ?? 0;
      return seen;
    },
  };
}

const ns = (value: number): string => (value >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(1));
const times = (value: number): string => `${value.toFixed(2)}×`;

async function validationTable(): Promise<string> {
  const before = (await oldCompiler())(ORDER_SCHEMA, false);
  const now = compileJsonSchema(ORDER_SCHEMA, false) as Check;
  const rows = [
    `| body | ${OLD_COMMIT}: ns per validation | now: ns per validation | now ÷ ${OLD_COMMIT} | rounds, now ÷ ${OLD_COMMIT} |`,
    '|---|---:|---:|---:|---|',
  ];
  for (const body of BODIES) {
    const [old, current] = measure([
      validationSubject(OLD_COMMIT, before, body.text, body.valid),
      validationSubject('now', now, body.text, body.valid),
    ]) as [number[], number[]];
    const ratios = current.map((value, round) => value / (old[round] as number));
    rows.push(`| ${body.label} | ${ns(median(old))} | ${ns(median(current))} | ${times(median(ratios))} | ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')} |`);
  }
  return rows.join('\n');
}

/** Patterns of the kind payload schemas hold, with values that match them and values that do not. */
const PATTERNS: readonly { name: string; pattern: string; matching: readonly string[]; failing: readonly string[] }[] = [
  {
    name: 'email-ish',
    pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
    matching: ['ada@example.com', 'grace.hopper+orders@mail.navy.example.org', 'customer-service.emea.north-region@subsidiary.example-holding-company.co.uk',
      `${'purchasing.department.'.repeat(5)}team@${'procurement-services.'.repeat(3)}example.com`],
    failing: ['ada at example dot com', 'ada@example', 'two@at@signs.example.com', `${'purchasing.department.'.repeat(5)}team@${'procurement-services.'.repeat(3)}example com`],
  },
  {
    name: 'ISO date or date-time',
    pattern: '^\\d{4}-\\d{2}-\\d{2}(?:T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}:\\d{2}))?$',
    matching: ['2026-11-28', '2026-11-28T02:20:00Z', '2026-11-28T02:20:00.123456+01:00', '2026-01-01T00:00:00.000-05:00'],
    failing: ['28/11/2026', '2026-11-28 02:20:00', '2026-11-28T02:20:00.123456', 'November 28th, 2026, at twenty past two in the morning'],
  },
  {
    name: 'UUID',
    pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    matching: ['123e4567-e89b-12d3-a456-426614174000', 'C73BCDCC-2669-4BF6-81D3-E4AE73FB11FD', '00000000-0000-4000-8000-000000000000'],
    failing: ['123e4567-e89b-12d3-a456-42661417400', '123e4567-e89b-12d3-a456-42661417400g', '{123e4567-e89b-12d3-a456-426614174000}', 'not a uuid, only a sentence that is long enough'],
  },
  {
    name: 'slug',
    pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
    matching: ['summer-sale-2026', 'how-to-connect-a-webhook-to-your-workflow', `${'a-longer-article-title-'.repeat(8)}final`],
    failing: ['Summer Sale 2026', 'trailing-dash-', 'double--dash', `${'a-longer-article-title-'.repeat(8)}Final`],
  },
  {
    name: 'phone',
    pattern: '^\\+?[0-9 ()-]{7,20}$',
    matching: ['+49 30 1234567', '(555) 123-4567', '+1 (555) 123-4567', '0044 20 7946 0958'],
    failing: ['call me maybe', '+49 30 1234567 ext. 12', '12345', '+49 30 1234567 8901 2345 6789'],
  },
  {
    name: 'hex colour',
    pattern: '^#(?:[0-9a-fA-F]{3}){1,2}$',
    matching: ['#fff', '#1a2B3c', '#000000', '#C0FFEE'],
    failing: ['red', '#12345', '#ggg', 'rgb(10, 20, 30)'],
  },
  {
    name: 'semver',
    pattern: '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?$',
    matching: ['1.2.3', '10.20.30-rc.1+build.5114f85', '2.0.0-alpha.beta.1+exp.sha.5114f85', '1.0.0-x-y-z.--'],
    failing: ['1.2', 'v1.2.3', '01.2.3', '1.2.3-beta!'],
  },
  {
    name: 'country code',
    pattern: '^[A-Z]{2}$',
    matching: ['DE', 'GB', 'US', 'JP'],
    failing: ['Germany', 'de', 'DEU', 'United Kingdom of Great Britain and Northern Ireland'],
  },
];

function patternSubject(name: string, test: (text: string) => boolean, strings: readonly string[], budgeted: boolean): Subject {
  const loop = (calls: number): number => {
    let matched = 0;
    for (let i = 0; i < calls; i++) if (test(strings[i % strings.length] as string)) matched++;
    return matched;
  };
  // RE2's test charges the budget in force, as it does inside a call's check; one without limits here.
  return { name, run: budgeted ? (calls) => withinBudget(new ValidationBudget(Infinity, Infinity), () => loop(calls)) : loop };
}

const lengths = (strings: readonly string[]): string => {
  const all = strings.map((text) => text.length);
  return `${Math.min(...all)}–${Math.max(...all)}`;
};

function patternTable(): string {
  const rows = [
    '| pattern | matching: lengths | V8: ns per test | RE2: ns per test | RE2 ÷ V8 | not matching: lengths | V8: ns per test | RE2: ns per test | RE2 ÷ V8 |',
    '|---|---|---:|---:|---:|---|---:|---:|---:|',
  ];
  for (const { name, pattern, matching, failing } of PATTERNS) {
    const v8 = new RegExp(pattern, 'u');
    const re2 = linearPattern(pattern, 'u');
    const cells: string[] = [];
    for (const [strings, expected] of [[matching, true], [failing, false]] as const) {
      for (const text of strings) {
        if (v8.test(text) !== expected || re2.test(text) !== expected) throw new Error(`${name}: ${JSON.stringify(text)} should ${expected ? '' : 'not '}match ${pattern}`);
      }
      const [onV8, onRe2] = measure([
        patternSubject('V8', (text) => v8.test(text), strings, false),
        patternSubject('RE2', (text) => re2.test(text), strings, true),
      ]) as [number[], number[]];
      const ratio = median(onRe2.map((value, round) => value / (onV8[round] as number)));
      cells.push(lengths(strings), ns(median(onV8)), ns(median(onRe2)), `${ratio.toFixed(1)}×`);
    }
    rows.push(`| ${name} \`${pattern.replaceAll('|', '\\|')}\` | ${cells.join(' | ')} |`);
  }
  return rows.join('\n');
}

export async function benchSchemaCost(): Promise<string> {
  const validation = await validationTable();
  const patterns = patternTable();
  return `${ROUNDS} rounds per row, each a batch of about ${BATCH_MS} ms per contender, medians; in process.\n\n` +
    `### The 10-field ORDER_SCHEMA: this compiler against ${OLD_COMMIT}'s\n\n${validation}\n\n` +
    `### RE2 (linearPattern, charged to a budget) against V8's RegExp (flag u), one test of one string\n\n${patterns}`;
}
