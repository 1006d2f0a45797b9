/**
 * The `workflow-webhooks` command. `lint <target>…` validates node descriptions where authors keep them: a .json
 * file, a compiled `*.node.js` exporting its class by name, a `.ts` node source (with a TypeScript loader), or a
 * whole package directory (every node under `n8n.nodes`); versioned nodes are linted version by version.
 * `schema` prints the JSON Schema for editors. Exit codes: 0 no errors (warnings allowed), 1 errors found,
 * 2 bad usage or something that could not be loaded.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { Finding, ValidationResult } from './findings.js';
import { loadTarget } from './node-loader.js';
import { NODE_DESCRIPTION_SCHEMA } from './schema.js';
import { validateNodeDescription, validateProperties, type ValidationOptions } from './validate.js';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `Usage:
  workflow-webhooks lint [options] <target>…   check node descriptions; a target is a .json file, a node module
                                               (.js, .cjs, .mjs, .ts) or a node package directory (n8n.nodes)
      --strict                 report every warning as an error
      --format text|json       output format (default text); --json is short for --format json
      --node-version <n[,n]>   judge @version display conditions for these node versions
                               (default: each description's version, else its defaultVersion)
  workflow-webhooks schema [--out <file>]      print the JSON Schema of node descriptions
  workflow-webhooks --version                  print the version of this tool`;

function toolVersion(): string {
  // Two levels up from lib/definitions/ and from dist/definitions/ alike.
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

interface LintArgs { strict: boolean; json: boolean; version?: number[]; targets: string[] }

function parseLintArgs(args: string[]): LintArgs | string {
  const parsed: LintArgs = { strict: false, json: false, targets: [] };
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? args[++index];
    if (flag === '--strict') parsed.strict = true;
    else if (flag === '--json') parsed.json = true;
    else if (flag === '--format') {
      const format = value();
      if (format !== 'json' && format !== 'text') return `--format takes text or json, not ${format === undefined ? 'nothing' : `'${format}'`}`;
      parsed.json = format === 'json';
    } else if (flag === '--node-version') {
      const given = value() ?? '';
      const versions = given.split(',').map(Number);
      if (given === '' || versions.some((version) => !Number.isFinite(version))) return `--node-version takes a number or a comma-separated list of numbers, not '${given}'`;
      parsed.version = versions;
    } else if (arg === '--') {
      parsed.targets.push(...args.slice(index + 1));
      break;
    } else if (arg.startsWith('-')) {
      return `unknown option ${arg}`;
    } else {
      parsed.targets.push(arg);
    }
  }
  return parsed.targets.length === 0 ? 'lint needs at least one file or package directory' : parsed;
}

function check(input: unknown, options: ValidationOptions): ValidationResult {
  return Array.isArray(input) ? validateProperties(input, options) : validateNodeDescription(input, options);
}

function line(finding: Finding): string {
  return `  ${finding.severity.padEnd(7)} ${finding.path || '/'}  ${finding.code}\n          ${finding.message}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

async function lint(argv: string[], io: CliIo): Promise<number> {
  const args = parseLintArgs(argv);
  if (typeof args === 'string') {
    io.err(`${args}\n${USAGE}\n`);
    return 2;
  }
  const options: ValidationOptions = { strict: args.strict, ...(args.version === undefined ? {} : { version: args.version }) };
  let status = 0;
  let totals = { descriptions: 0, errors: 0, warnings: 0 };
  const report: Record<string, ValidationResult | { unreadable: string }> = {};
  for (const target of args.targets) {
    const { nodes, problems } = await loadTarget(target);
    for (const problem of problems) {
      report[problem.file] = { unreadable: problem.message };
      if (!args.json) io.err(`${problem.file}: ${problem.message}\n`);
      status = 2;
    }
    for (const node of nodes) {
      const result = check(node.input, options);
      report[node.label] = result;
      totals = { descriptions: totals.descriptions + 1, errors: totals.errors + result.errors.length, warnings: totals.warnings + result.warnings.length };
      if (!result.valid && status === 0) status = 1;
      if (args.json) continue;
      const findings = [...result.errors, ...result.warnings];
      io.out(`${node.label}\n${findings.map(line).join('\n')}${findings.length > 0 ? '\n' : ''}`);
      io.out(`  ${plural(result.errors.length, 'error')}, ${plural(result.warnings.length, 'warning')}\n`);
    }
  }
  if (args.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else if (totals.descriptions > 1) io.out(`${plural(totals.descriptions, 'description')}: ${plural(totals.errors, 'error')}, ${plural(totals.warnings, 'warning')}\n`);
  return status;
}

async function schema(args: string[], io: CliIo): Promise<number> {
  const text = `${JSON.stringify(NODE_DESCRIPTION_SCHEMA, null, 2)}\n`;
  if (args.length === 0) {
    io.out(text);
    return 0;
  }
  if (args.length !== 2 || args[0] !== '--out') {
    io.err(`${args[0] === '--out' ? '--out needs a file name' : `unknown option ${String(args[0])}`}\n${USAGE}\n`);
    return 2;
  }
  await writeFile(args[1] as string, text);
  return 0;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'lint') return lint(args, io);
  if (command === 'schema') return schema(args, io);
  if (command === '--version' || command === '-v') {
    io.out(`${toolVersion()}\n`);
    return 0;
  }
  if (command === '--help' || command === '-h') {
    io.out(`${USAGE}\n`);
    return 0;
  }
  io.err(`${command === undefined ? '' : `unknown command ${command}\n`}${USAGE}\n`);
  return 2;
}
