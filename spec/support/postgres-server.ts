/**
 * A throwaway PostgreSQL cluster for the specs: `initdb` in a temporary folder, started by `pg_ctl` on a free
 * loopback port with its unix socket in that folder, stopped and removed afterwards (also when the spec process exits
 * early). initdb and postgres refuse to run as root, so under root (CI) the folder is handed to `nobody` and the server
 * runs as that user. It can be restarted as a crash would (`pg_ctl restart -m immediate`) and its backends killed.
 * A standby is one whose data folder is filled by `pg_basebackup` instead of initdb (`from`), and it can be promoted.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './redis-topologies.js';
import { findService, type Service } from './services.js';

const run = promisify(execFile);

/** Debian's server binaries, newest version first (they are not on PATH). */
function debianFolders(): string[] {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return [];
  return readdirSync(root).sort((a, b) => Number(b) - Number(a)).map((version) => join(root, version, 'bin'));
}

/** Its folders are read when asked, so a server just installed by findService() is found. */
export const POSTGRES: Service = { binary: 'pg_ctl', debianPackage: 'postgresql', get folders() { return debianFolders(); } };

/** The unprivileged user a root process runs the server as. */
const NOBODY = { uid: 65534, gid: 65534 };

/** Runs one of the server's own binaries (pg_basebackup, …) as the server's user, in its folder. */
export type ServerTool = (binary: string, args: string[]) => Promise<void>;

export interface PostgresStartOptions {
  /** Server settings given as `-c name=value` on every start (they win over postgresql.conf); values without spaces. */
  settings?: Readonly<Record<string, string>>;
  /** Fills the (not yet existing) data folder instead of initdb: a base backup of another server, for a standby. */
  from?: (data: string, tool: ServerTool) => Promise<void>;
}

export class PostgresServer {
  readonly port: number;
  readonly #bin: string;
  readonly #folder: string;
  readonly #settings: Readonly<Record<string, string>>;
  readonly #onExit = (): void => this.#stopNow();
  #running = false;

  private constructor(bin: string, folder: string, port: number, settings: Readonly<Record<string, string>>) {
    this.#bin = bin;
    this.#folder = folder;
    this.port = port;
    this.#settings = settings;
  }

  /** Creates and starts one, or resolves undefined when PostgreSQL is not on this machine (and cannot be installed). */
  static async start(options: PostgresStartOptions = {}): Promise<PostgresServer | undefined> {
    const pgCtl = findService(POSTGRES);
    if (pgCtl === undefined) return undefined;
    const folder = mkdtempSync(join(tmpdir(), 'ww-postgres-'));
    const server = new PostgresServer(dirname(pgCtl), folder, await freePort(), options.settings ?? {});
    try {
      if (server.#asRoot) chownSync(folder, NOBODY.uid, NOBODY.gid);
      if (options.from === undefined) {
        await server.#exec('initdb', ['-D', server.#data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
      } else {
        await options.from(server.#data, (binary, args) => server.#exec(binary, args));
      }
      await server.#pgCtl(['start']);
      process.once('exit', server.#onExit);
      return server;
    } catch (error) {
      server.#stopNow();
      throw error;
    }
  }

  /** A connection string for the `postgres` superuser over TCP. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /**
   * Restarts it as a crash would: every connection dropped, no clean shutdown (`pg_ctl restart -m immediate`). A
   * start right after an immediate stop can find the old server's last backends still exiting: it is tried again.
   */
  async restartImmediately(): Promise<void> {
    try {
      await this.#pgCtl(['restart', '-m', 'immediate']);
    } catch {
      await this.startAgain();
    }
  }

  /** The postmaster's process id (its backends are its children): for measuring the database's own CPU. */
  get pid(): number {
    return Number(readFileSync(join(this.#data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /** Stops it at once (`-m immediate`) without removing its data, until `startAgain()`. */
  async stopImmediately(): Promise<void> {
    await this.#exec('pg_ctl', ['-D', this.#data, 'stop', '-m', 'immediate', '-w']);
    this.#running = false;
  }

  /** Ends recovery of a standby (`pg_ctl promote`), resolving once it takes writes as a primary. */
  async promote(): Promise<void> {
    await this.#exec('pg_ctl', ['-D', this.#data, 'promote', '-w', '-t', '60']);
  }

  async startAgain(): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.#pgCtl(['start']);
        return;
      } catch (error) {
        if (attempt === 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  async stop(): Promise<void> {
    process.removeListener('exit', this.#onExit);
    this.#stopNow();
  }

  get #asRoot(): boolean {
    return process.getuid?.() === 0;
  }

  get #data(): string {
    return join(this.#folder, 'data');
  }

  async #pgCtl(args: string[]): Promise<void> {
    const settings = Object.entries(this.#settings).map(([name, value]) => ` -c ${name}=${value}`).join('');
    const options = `-p ${this.port} -k ${this.#folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200${settings}`;
    await this.#exec('pg_ctl', ['-D', this.#data, '-l', join(this.#folder, 'server.log'), '-o', options, '-w', '-t', '60', ...args]);
    this.#running = true;
  }

  async #exec(binary: string, args: string[]): Promise<void> {
    try {
      await run(join(this.#bin, binary), args, { cwd: this.#folder, ...(this.#asRoot ? NOBODY : {}) });
    } catch (error) {
      const log = join(this.#folder, 'server.log');
      const tail = existsSync(log) ? execFileSync('tail', ['-n', '20', log], { encoding: 'utf8' }) : '';
      throw new Error(`${binary} ${args.join(' ')} failed: ${(error as Error).message}\n${tail}`);
    }
  }

  #stopNow(): void {
    if (this.#running) {
      try {
        execFileSync(join(this.#bin, 'pg_ctl'), ['-D', this.#data, 'stop', '-m', 'immediate', '-w'], { stdio: 'ignore', ...(this.#asRoot ? NOBODY : {}) });
      } catch {
        // Already gone.
      }
      this.#running = false;
    }
    rmSync(this.#folder, { recursive: true, force: true });
  }
}

let shared: Promise<PostgresServer | undefined> | undefined;

/**
 * One server for every spec file of a run that only needs a database (each test takes a fresh schema): initdb costs
 * seconds, so it is paid once; the server is stopped when the run's process exits. Specs that restart or stop the
 * server start their own.
 */
export function sharedPostgres(): Promise<PostgresServer | undefined> {
  shared ??= PostgresServer.start();
  return shared;
}
