/**
 * `workflow-webhooks lint <file.json|.js> …` prints the findings of each file with their paths and exits non-zero
 * on errors; `workflow-webhooks schema` prints the JSON Schema for editors. Exit codes: 0 clean (warnings allowed),
 * 1 errors found, 2 bad usage or an unreadable file.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Finding, ValidationResult } from './findings.js';
import { NODE_DESCRIPTION_SCHEMA } from './schema.js';
import { validateNodeDescription, validateProperties } from './validate.js';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `Usage:
  workflow-webhooks lint [--strict] [--json] <file.json|file.js> …   check node descriptions or property lists
  workflow-webhooks schema [--out <file>]                           print the JSON Schema of node descriptions`;

/** A .json file, or a module whose default (or `description`) export is a description or a property list. */
async function load(file: string): Promise<unknown> {
  const path = resolve(file);
  if (extname(path) === '.json') return JSON.parse(await readFile(path, 'utf8')) as unknown;
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  let value: unknown = module.default ?? module.description ?? module;
  if (typeof value === 'function') value = (new (value as new () => { description?: unknown })()).description ?? value;
  if (typeof value === 'object' && value !== null && 'description' in value && !('properties' in value)) value = (value as { description: unknown }).description;
  return value;
}

function check(input: unknown, strict: boolean): ValidationResult {
  return Array.isArray(input) ? validateProperties(input, { strict }) : validateNodeDescription(input, { strict });
}

function line(finding: Finding): string {
  return `  ${finding.severity.padEnd(7)} ${finding.path || '/'}  ${finding.code}\n          ${finding.message}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

async function lint(args: string[], io: CliIo): Promise<number> {
  const strict = args.includes('--strict');
  const json = args.includes('--json');
  const files = args.filter((arg) => !arg.startsWith('--'));
  if (files.length === 0) {
    io.err(`${USAGE}\n`);
    return 2;
  }
  let status = 0;
  const report: Record<string, ValidationResult | { unreadable: string }> = {};
  for (const file of files) {
    let result: ValidationResult;
    try {
      result = check(await load(file), strict);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      report[file] = { unreadable: reason };
      if (!json) io.err(`${file}: cannot read it: ${reason}\n`);
      status = 2;
      continue;
    }
    report[file] = result;
    if (!result.valid && status === 0) status = 1;
    if (json) continue;
    const findings = [...result.errors, ...result.warnings];
    io.out(`${file}\n${findings.map(line).join('\n')}${findings.length > 0 ? '\n' : ''}`);
    io.out(`  ${plural(result.errors.length, 'error')}, ${plural(result.warnings.length, 'warning')}\n`);
  }
  if (json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  return status;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'lint') return lint(args, io);
  if (command === 'schema') {
    const text = `${JSON.stringify(NODE_DESCRIPTION_SCHEMA, null, 2)}\n`;
    const out = args.indexOf('--out');
    if (out === -1) io.out(text);
    else if (args[out + 1] === undefined) { io.err(`${USAGE}\n`); return 2; }
    else await writeFile(args[out + 1] as string, text);
    return 0;
  }
  io.err(`${USAGE}\n`);
  return command === undefined || command === '--help' || command === '-h' ? 0 : 2;
}
