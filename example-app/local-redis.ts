/**
 * A redis-server of the example's own, for `npm run start:queue`: Debian's `redis-server` on a free loopback port,
 * persistence off, stopped by the example (not by the terminal's Ctrl-C), last. Redis is the queue's store, so nothing of it outlives the demo.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';

export interface LocalRedis {
  url: string;
  child: ChildProcess;
  /** Stops it and resolves once it has exited. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts one; rejects saying what to install when redis-server is not on this machine. */
export async function startLocalRedis(): Promise<LocalRedis> {
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) {
    throw new Error('redis-server is not installed. On Debian or Ubuntu: sudo apt-get install redis-server');
  }
  const port = await freePort();
  // A process group of its own: Ctrl-C in a terminal signals the whole foreground group, and Redis would go first,
  // under the workers and the web instance still using it. The example stops it last, or at its exit at the latest.
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const orphaned = (): void => { child.kill('SIGTERM'); };
  process.once('exit', orphaned);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`redis-server exited with ${String(code)}:\n${output}`)); });
  });
  child.stdout?.resume();
  child.stderr?.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => { process.off('exit', orphaned); resolve(); }));
  return { url: `redis://127.0.0.1:${port}`, child, stop: () => { child.kill('SIGTERM'); return exited; } };
}
