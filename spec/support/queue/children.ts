/**
 * The child processes of the queue fault specs (web instances, workers): started with the library's source
 * condition and tsx, ready once they say so over IPC, SIGKILLed on purpose by a test, and all of them killed by
 * `killAll()` in an after hook, so no run leaves a process behind. An exit the test did not cause is recorded with
 * the tail of the child's stderr: a crash of a web instance or worker is a finding, not noise.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** The web instance's port; undefined for a worker. */
  readonly port: number | undefined;
  /** SIGKILL, as a crash or an out-of-memory kill would; resolves once it is gone. */
  kill(): Promise<void>;
}

export interface UnexpectedExit {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

const ENTRIES = {
  web: fileURLToPath(new URL('./web-entry.ts', import.meta.url)),
  worker: fileURLToPath(new URL('./worker-entry.ts', import.meta.url)),
};

/** How long a child may take to start: tsx compiles on a cold, loaded machine. */
const START_LIMIT_MS = 30_000;

export class Children {
  /** Each running child with its kill(): killAll() kills through it, so those exits count as ours. */
  readonly #running = new Map<ChildProcess, () => Promise<void>>();
  readonly unexpectedExits: UnexpectedExit[] = [];
  /** Killed by us however the spec ends, even when mocha leaves without its after hooks. */
  readonly #onExit = (): void => { for (const child of this.#running.keys()) child.kill('SIGKILL'); };

  constructor() {
    process.once('exit', this.#onExit);
  }

  start(kind: keyof typeof ENTRIES, name: string, env: Record<string, string>): Promise<Child> {
    const child = fork(ENTRIES[kind], [], {
      execArgv: ['--conditions=workflow-webhooks-source', '--import', 'tsx'],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    // Always read, or a chatty child would block on a full pipe; only the tail is kept for a report.
    child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
    let killedByUs = false;
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.#running.delete(child);
        if (!killedByUs) this.unexpectedExits.push({ name, code, signal, stderr });
        resolve();
      });
    });
    const kill = async (): Promise<void> => {
      killedByUs = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    };
    this.#running.set(child, kill);
    return new Promise<Child>((resolve, reject) => {
      const timer = setTimeout(() => {
        void kill().then(() => reject(new Error(`${name} did not start within ${START_LIMIT_MS} ms:\n${stderr}`)));
      }, START_LIMIT_MS);
      child.once('message', (message: { type: string; port?: number }) => {
        clearTimeout(timer);
        resolve({ name, process: child, port: message.port, kill });
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`${name} exited before it was ready:\n${stderr}`));
      });
    });
  }

  /** Every child still running, SIGKILLed; resolves once all are gone. */
  async killAll(): Promise<void> {
    await Promise.all([...this.#running.values()].map((kill) => kill()));
    process.off('exit', this.#onExit);
  }
}
