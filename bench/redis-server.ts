/**
 * A private redis-server for the Redis benchmarks: a free loopback port, persistence off, started and stopped by
 * its PID. Kept apart from spec/support/redis-server.ts so the benchmarks never install packages or load mocha hooks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { createClient } from 'redis';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface BenchRedis {
  url: string;
  /** The redis-server's process id (to pin it to a core). */
  pid: number;
  stop(): Promise<void>;
}

/** `extra`: more redis-server arguments (`--replicaof 127.0.0.1 <port>` makes a replica). */
export async function startRedis(binary = process.env.REDIS_SERVER ?? 'redis-server', extra: string[] = []): Promise<BenchRedis> {
  const port = await freePort();
  // Persistence off (no RDB, no AOF): nothing to write to disk while measuring. The slow log keeps every command
  // slower than 10 ms, so a long script (the 100 000-workflow snapshot) can be reported.
  const child: ChildProcess = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
    '--protected-mode', 'yes', '--slowlog-log-slower-than', '10000', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  // If the benchmark dies on an error or is interrupted, the server must not outlive it.
  const killOnExit = (): void => { child.kill('SIGKILL'); };
  const killOnSignal = (signal: NodeJS.Signals): void => {
    child.kill('SIGKILL');
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('exit', killOnExit);
  process.once('SIGINT', killOnSignal);
  process.once('SIGTERM', killOnSignal);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${port}:\n${output}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', (error) => { clearTimeout(timer); reject(error); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`redis-server exited with ${String(code)}:\n${output}`)); });
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      process.removeListener('SIGINT', killOnSignal);
      process.removeListener('SIGTERM', killOnSignal);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** redis-server's CPU so far, in µs (INFO cpu: its main thread and the rest). */
export async function redisCpu(url: string): Promise<number> {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const info = await client.info('cpu');
    const field = (name: string): number => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
    return Math.round((field('used_cpu_user') + field('used_cpu_sys')) * 1e6);
  } finally {
    client.destroy();
  }
}
