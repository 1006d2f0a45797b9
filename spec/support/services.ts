/**
 * Real servers the specs need (redis-server, Chromium): found on PATH, installed with apt-get on a Debian
 * machine where we are root, or else named as missing. A missing service never makes a silent green: its specs are
 * listed as NOT RUN at the end of the run, and with REQUIRE_SERVICES=1 (as .ci/run sets) the run fails instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface Service {
  /** The binary to run, e.g. redis-server. */
  binary: string;
  /** The Debian package that holds it. */
  debianPackage: string;
  /** Folders searched before PATH: Debian keeps PostgreSQL's server binaries off it (/usr/lib/postgresql/15/bin). */
  folders?: readonly string[];
}

/**
 * One list for the whole run, on globalThis: mocha's root hooks load this file through require, while specs may
 * reach it through import, and the two are separate module instances.
 */
const NOT_RUN = Symbol.for('workflow-webhooks.specs.notRun');
const notRun: string[] = ((globalThis as Record<symbol, unknown>)[NOT_RUN] ??= []) as string[];

function onPath(binary: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

function canInstall(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/etc/debian_version') && onPath('apt-get') !== undefined;
}

/** The service's binary in one of its own folders, or on PATH. */
function located(service: Service): string | undefined {
  const own = (service.folders ?? []).map((folder) => join(folder, service.binary)).find((path) => existsSync(path));
  return own ?? onPath(service.binary);
}

/** The path of the service's binary, installing its Debian package when that is possible; undefined when missing. */
export function findService(service: Service): string | undefined {
  const found = located(service);
  if (found !== undefined || !canInstall()) return found;
  process.stdout.write(`  (installing ${service.debianPackage} with apt-get for the specs that need it)\n`);
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', service.debianPackage], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', service.debianPackage], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  return located(service);
}

/** Records specs that could not run; fails at once when the run requires every service. */
export function markNotRun(what: string, service: Service): void {
  const line = `${what}: ${service.binary} is missing (install the Debian package ${service.debianPackage}, or put ${service.binary} on PATH)`;
  if (process.env.REQUIRE_SERVICES === '1') throw new Error(`REQUIRE_SERVICES=1 but ${line}`);
  notRun.push(line);
}

/** Mocha root hooks (package.json "require"): the NOT RUN list closes the run's output. */
export const mochaHooks = {
  afterAll(): void {
    if (notRun.length === 0) return;
    process.stdout.write(`\n  NOT RUN (${notRun.length}):\n${notRun.map((line) => `    - ${line}\n`).join('')}`);
  },
};
