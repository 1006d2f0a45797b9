/**
 * A throwaway PgBouncer in front of a spec's PostgreSQL server, as production puts one between the app and its
 * database: Debian's `pgbouncer` on a free loopback port, in session or transaction mode, its configuration and
 * logs in a temporary folder, stopped and removed afterwards (also when the spec process exits early). PgBouncer
 * refuses to run as root, so under root (CI) the folder is handed to `nobody` and the pooler runs as that user.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PostgresServer } from './postgres-server.js';
import { freePort } from './redis-topologies.js';
import { findService, type Service } from './services.js';

/** Debian installs it in /usr/sbin, which a non-root PATH may lack. */
export const PGBOUNCER: Service = { binary: 'pgbouncer', debianPackage: 'pgbouncer', folders: ['/usr/sbin'] };

/** session: one server connection per client connection, for its life; transaction: one per transaction only. */
export type PoolMode = 'session' | 'transaction';

const NOBODY = { uid: 65534, gid: 65534 };
const READY_WITHIN_MS = 15_000;

/** True once something accepts TCP connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

export class PgBouncer {
  readonly port: number;
  readonly mode: PoolMode;
  readonly #folder: string;
  readonly #child: ChildProcess;
  readonly #onExit = (): void => this.#stopNow();

  private constructor(port: number, mode: PoolMode, folder: string, child: ChildProcess) {
    this.port = port;
    this.mode = mode;
    this.#folder = folder;
    this.#child = child;
  }

  /** Starts one in front of `server`, or resolves undefined when pgbouncer is not on this machine (and cannot be installed). */
  static async start(server: PostgresServer, mode: PoolMode): Promise<PgBouncer | undefined> {
    const binary = findService(PGBOUNCER);
    if (binary === undefined) return undefined;
    const folder = mkdtempSync(join(tmpdir(), 'ww-pgbouncer-'));
    const port = await freePort();
    const asRoot = process.getuid?.() === 0;
    writeFileSync(join(folder, 'users.txt'), '"postgres" ""\n');
    // Sessions held for good (LISTEN) take a server connection each in session mode: the pool is sized for the specs'
    // many registries, under the throwaway cluster's max_connections of 200.
    writeFileSync(join(folder, 'pgbouncer.ini'), [
      '[databases]',
      `* = host=127.0.0.1 port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(folder, 'users.txt')}`,
      `pool_mode = ${mode}`,
      'max_client_conn = 400',
      'default_pool_size = 150',
      `logfile = ${join(folder, 'pgbouncer.log')}`,
      '',
    ].join('\n'));
    if (asRoot) {
      for (const path of [folder, join(folder, 'users.txt'), join(folder, 'pgbouncer.ini')]) chownSync(path, NOBODY.uid, NOBODY.gid);
    }
    const child = spawn(binary, [join(folder, 'pgbouncer.ini')], { cwd: folder, stdio: 'ignore', ...(asRoot ? NOBODY : {}) });
    const bouncer = new PgBouncer(port, mode, folder, child);
    process.once('exit', bouncer.#onExit);
    try {
      await bouncer.#ready();
      return bouncer;
    } catch (error) {
      await bouncer.stop();
      throw error;
    }
  }

  /** A connection string for the `postgres` superuser through the pooler. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** What the pooler logged (refused start-up parameters, unsupported statements): for a failing spec's message. */
  get log(): string {
    const file = join(this.#folder, 'pgbouncer.log');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  async stop(): Promise<void> {
    process.removeListener('exit', this.#onExit);
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise((resolve) => this.#child.once('exit', resolve));
      this.#child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.#folder, { recursive: true, force: true });
  }

  async #ready(): Promise<void> {
    const until = Date.now() + READY_WITHIN_MS;
    while (!await accepts(this.port)) {
      if (this.#child.exitCode !== null || Date.now() > until) {
        throw new Error(`pgbouncer did not start on 127.0.0.1:${this.port}:\n${this.log.split('\n').slice(-20).join('\n')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  #stopNow(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
    rmSync(this.#folder, { recursive: true, force: true });
  }
}
