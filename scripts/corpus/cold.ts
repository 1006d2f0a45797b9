/**
 * The cold-start measure, run in a fresh process by run.ts: import the validator, then validate every description
 * of a dump once, ajv's schema compilation included. Prints wall and CPU milliseconds as JSON; CPU time is what to
 * compare when the machine is shared (wall time then includes waiting for a core).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const ms = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

const started = performance.now();
const cpuStarted = process.cpuUsage();
const { validateNodeDescription } = await import('../../lib/definitions/index.js');
const imported = performance.now();
const cpuImported = process.cpuUsage(cpuStarted);
const inputs = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as unknown[];
const parsed = performance.now();
const cpuParsed = process.cpuUsage();
for (const input of inputs) validateNodeDescription(input);
const done = performance.now();
const cpuValidated = process.cpuUsage(cpuParsed);
process.stdout.write(`${JSON.stringify({
  importMs: imported - started, validateMs: done - parsed, importCpuMs: ms(cpuImported), validateCpuMs: ms(cpuValidated), descriptions: inputs.length,
})}\n`);
