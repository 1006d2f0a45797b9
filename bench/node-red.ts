/**
 * Node-RED for the speed table, installed like a peer outside the repository (never a dependency of ours):
 * `$NODE_RED_DIR`, default `~/.cache/workflow-webhooks/node-red-4.1`, installed there on first use; BENCH_NODE_RED=0
 * leaves Node-RED out. Gives the directory, or why the Node-RED rows were not run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const NODE_RED_VERSION = '4.1.8';

export function nodeRedDir(): { dir: string } | { notRun: string } {
  if (process.env.BENCH_NODE_RED === '0') return { notRun: 'Node-RED left out (BENCH_NODE_RED=0)' };
  const dir = process.env.NODE_RED_DIR ?? join(homedir(), '.cache', 'workflow-webhooks', 'node-red-4.1');
  if (existsSync(join(dir, 'node_modules', 'node-red', 'package.json'))) return { dir };
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`installing node-red@${NODE_RED_VERSION} into ${dir} (once) …\n`);
  const install = spawnSync('npm', ['install', `node-red@${NODE_RED_VERSION}`, '--no-audit', '--no-fund', '--omit=dev'], { cwd: dir, stdio: 'ignore' });
  if (install.status !== 0) return { notRun: `Node-RED could not be installed into ${dir}: npm exited ${String(install.status)}` };
  return { dir };
}
