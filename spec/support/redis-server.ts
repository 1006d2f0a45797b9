/**
 * A private redis-server for the specs: on a free loopback port, persistence off, started and stopped by PID. It
 * can be paused (SIGSTOP: a black-holed Redis), killed (a crash; with persistence off it comes back empty) and
 * restarted on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { findService, type Service } from './services.js';
import { freePort } from './redis-topologies.js';

export const REDIS: Service = { binary: 'redis-server', debianPackage: 'redis-server' };

export { freePort };

export class RedisServer {
  readonly port: number;
  readonly #binary: string;
  readonly #extraArgs: string[];
  #child: ChildProcess | undefined;

  private constructor(binary: string, port: number, extraArgs: string[]) {
    this.#binary = binary;
    this.port = port;
    this.#extraArgs = extraArgs;
  }

  /**
   * Starts one, or resolves undefined when redis-server is not on this machine (and cannot be installed).
   * `extraArgs(port)` adds to (and overrides) its command line: TLS on that port, say.
   */
  static async start(extraArgs: (port: number) => string[] = () => []): Promise<RedisServer | undefined> {
    const binary = findService(REDIS);
    if (binary === undefined) return undefined;
    // A free port can be taken by another socket between its probe and the bind: then another one, twice at most.
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      const server = new RedisServer(binary, port, extraArgs(port));
      try {
        await server.#spawn();
        return server;
      } catch (error) {
        if (attempt === 3 || !/Address already in use/.test((error as Error).message)) throw error;
      }
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  /** Kills it as a crash would; with persistence off its data is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
    this.#child = undefined;
  }

  /** Starts it again on the same port (empty). */
  restart(): Promise<void> {
    return this.#spawn();
  }

  async stop(): Promise<void> {
    await this.kill();
  }

  async #spawn(): Promise<void> {
    const child = spawn(this.#binary, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', ...this.#extraArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${this.port}:\n${output}`)), 10_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${String(code)}:\n${output}`));
      });
    });
    child.stdout?.resume();
    child.stderr?.resume();
  }
}
