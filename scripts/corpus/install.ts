/**
 * Puts the known platform's node package (`n8n-nodes-base`, pinned) into a folder outside the repository, once:
 * its dependencies with the `@n8n/*` pins relaxed (several pinned versions are missing from the registry copy
 * here) plus `n8n-core`, then the package's own tarball unpacked last, because a later `npm install` would prune it.
 * Install scripts are skipped: native add-ons are not needed to read descriptions.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PACKAGE = 'n8n-nodes-base';
export const VERSION = process.env.CORPUS_VERSION ?? '2.41.2';

export function corpusDir(): string {
  return process.env.CORPUS_DIR ?? join(homedir(), '.cache', 'workflow-webhooks', 'corpus');
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

function installedVersion(packageDir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** The package directory, installed now or reused from an earlier run. */
export function ensureCorpus(log: (line: string) => void): string {
  const dir = join(corpusDir(), VERSION);
  const packageDir = join(dir, 'node_modules', PACKAGE);
  if (installedVersion(packageDir) === VERSION) {
    log(`reusing ${PACKAGE}@${VERSION} in ${dir}`);
    return packageDir;
  }
  log(`installing ${PACKAGE}@${VERSION} into ${dir} (about 900 packages, 0.9 GB, a minute or two) …`);
  mkdirSync(dir, { recursive: true });
  const dependencies = JSON.parse(npm(['view', `${PACKAGE}@${VERSION}`, 'dependencies', '--json'], dir)) as Record<string, string>;
  for (const name of Object.keys(dependencies)) if (name.startsWith('@n8n/')) dependencies[name] = '*';
  dependencies['n8n-core'] = '*';
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'workflow-webhooks-corpus', private: true, dependencies }, null, 2)}\n`);
  npm(['install', '--ignore-scripts'], dir);
  const tarball = npm(['pack', `${PACKAGE}@${VERSION}`, '--silent'], dir).trim().split('\n').pop() ?? '';
  rmSync(packageDir, { recursive: true, force: true });
  mkdirSync(packageDir, { recursive: true });
  execFileSync('tar', ['xzf', join(dir, tarball), '-C', packageDir, '--strip-components=1']);
  rmSync(join(dir, tarball), { force: true });
  if (installedVersion(packageDir) !== VERSION || !existsSync(join(packageDir, 'dist'))) throw new Error(`the install of ${PACKAGE}@${VERSION} in ${dir} did not work`);
  return packageDir;
}
