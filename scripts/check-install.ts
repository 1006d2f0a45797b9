/**
 * `npm run check:install`, after `npm run build`: the package as npm would publish it, installed into a new app the
 * way README's quick start says (`npm install workflow-webhooks express`, TypeScript beside it), with README's quick
 * start pasted into it as printed. It must compile under `strict` and answer the curl line printed under it. Only the
 * port differs (a free one instead of 3000). CI runs it (from .ci/run): a file missing from the package, an export
 * that resolves only inside the repository, or types that need a path the package does not ship all fail here.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

/** README from its quick start on. */
function quickStartSection(): string {
  return readFileSync(join(root, 'README.md'), 'utf8').split('\n## Quick start')[1] ?? '';
}

/** A block of README's quick start, as printed: the first of `language` after its heading. */
function quickStartBlock(language: 'ts' | 'json'): string {
  const block = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(quickStartSection())?.[1];
  if (block === undefined) throw new Error(`README has no ${language} block under "## Quick start".`);
  return block;
}

const quickStart = (): string => quickStartBlock('ts');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const npm = (cwd: string, args: string[]): string => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

async function answerOf(port: number, deadline: number): Promise<{ status: number; body: string }> {
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/automation/webhook/signup`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Ada"}',
      });
      return { status: res.status, body: await res.text() };
    } catch (error) {
      if (Date.now() > deadline) throw new Error('The quick start app did not answer within 20 s.', { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'wwh-install-'));
  try {
    npm(root, ['pack', '--silent', '--pack-destination', work]);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack wrote no tarball.');
    const app = join(work, 'app');
    execFileSync('mkdir', [app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'quick-start', private: true, type: 'module' }));
    // The tsconfig.json README prints beside the quick start, and its command: tsc, then node out/index.js.
    writeFileSync(join(app, 'tsconfig.json'), quickStartBlock('json'));
    if (!quickStartSection().includes('npx tsc && node out/index.js')) throw new Error('README\'s quick start no longer runs with npx tsc && node out/index.js.');
    const dev = (name: string): string => `${name}@${manifest.devDependencies[name] ?? 'latest'}`;
    npm(app, ['install', '--no-audit', '--no-fund', '--silent', join(work, tarball), dev('express')]);
    npm(app, ['install', '--no-audit', '--no-fund', '--silent', '--save-dev', dev('typescript'), dev('@types/express'), dev('@types/node')]);
    const port = await freePort();
    const printed = quickStart();
    if (!printed.includes('app.listen(3000);')) throw new Error('README\'s quick start no longer listens with app.listen(3000).');
    writeFileSync(join(app, 'index.ts'), printed.replace('app.listen(3000);', `app.listen(${port}, '127.0.0.1');`));
    execFileSync(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', app], { stdio: 'inherit' });
    const server = spawn(process.execPath, [join(app, 'out/index.js')], { cwd: app, stdio: ['ignore', 'inherit', 'inherit'] });
    try {
      const answer = await answerOf(port, Date.now() + 20_000);
      if (answer.status !== 200 || answer.body !== '{"welcome":"Ada"}') {
        throw new Error(`The quick start answered ${answer.status} ${answer.body}, not 200 {"welcome":"Ada"}.`);
      }
    } finally {
      server.kill();
    }
    process.stdout.write(`check:install: ${tarball} installs into a new app; README's quick start compiles under strict and answers {"welcome":"Ada"}.\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
