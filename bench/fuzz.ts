/**
 * `npm run fuzz -- [count] [seed]`: the fuzz spec's harness at scale (default 100 000 requests) against a real
 * server on loopback; prints the figures and exits non-zero on any violation. Not part of `npm test`.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFuzz, startFuzzServer } from '../spec/support/fuzz/harness.js';

const count = Number(process.argv[2] ?? 100_000);
const seed = Number(process.argv[3] ?? 20261122);
const temp = mkdtempSync(join(tmpdir(), 'ww-fuzz-'));
const server = await startFuzzServer(temp);
const started = performance.now();
const report = await runFuzz(server, count, { seed });
const seconds = (performance.now() - started) / 1000;
await new Promise((resolve) => setTimeout(resolve, 1000));
const left = readdirSync(temp).length;
await server.close();
rmSync(temp, { recursive: true, force: true });
process.stdout.write(`${count} requests (seed ${seed}) in ${seconds.toFixed(1)} s, ${(count / seconds).toFixed(0)}/s, slowest ${report.maxMs.toFixed(0)} ms\n`);
process.stdout.write(`statuses: ${JSON.stringify(report.statuses)}\n`);
process.stdout.write(`workflows run: ${server.executed.size}, temp files left: ${left}, violations: ${report.violations.length}\n`);
for (const violation of report.violations) process.stdout.write(`  ${violation}\n`);
process.exitCode = report.violations.length === 0 && left === 0 ? 0 : 1;
