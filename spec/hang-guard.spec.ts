/**
 * The hang guard of the spec run (spec/support/hang-guard.ts): a run whose specs leave something open ends with a
 * failing code and names what held it, instead of hanging. Shown on a mocha of its own, run on a fixture spec that
 * leaves a server listening, with the guard's grace kept short.
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MOCHA = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
const FIXTURE = 'spec/support/hang-guard/left-open.fixture.ts';

interface Ended { code: number | null; signal: string | null; output: string }

/**
 * Runs mocha on the fixture. A run the guard did not end is killed after `deadlineMs`, so a broken guard reads red;
 * the whole process group, as mocha runs the tests in a child process of its own (for its node options).
 */
function runFixture(failures: number, deadlineMs = 30_000): Promise<Ended> {
  return new Promise((resolveEnd, reject) => {
    const child = spawn(process.execPath, [MOCHA, FIXTURE], {
      cwd: ROOT,
      env: { ...process.env, SPEC_HANG_GRACE_MS: '500', HANG_FIXTURE_FAILURES: String(failures) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    const deadline = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), deadlineMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(deadline);
      resolveEnd({ code, signal, output });
    });
  });
}

describe('a spec run that something keeps open after its last test', function () {
  // Two mocha processes under tsx, each a few seconds on a loaded machine (and up to runFixture's deadline).
  this.timeout(60_000);

  it('ends with code 1 although its tests passed, naming the server that held it', async () => {
    const ended = await runFixture(0);
    expect([ended.code, ended.signal], ended.output).to.deep.equal([1, null]);
    expect(ended.output).to.include('1 passing');
    expect(ended.output).to.match(/HUNG RUN: 500 ms after the last test the process is still held open by [^\n]*TCPServerWrap ×1/);
  });

  it('keeps mocha\'s failure count as its code when tests failed', async () => {
    const ended = await runFixture(2);
    expect([ended.code, ended.signal], ended.output).to.deep.equal([2, null]);
    expect(ended.output).to.include('2 failing');
    expect(ended.output).to.include('HUNG RUN');
  });
});
