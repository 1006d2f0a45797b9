/**
 * The benchmark's side of servers/redis-instance.ts: forks one instance process and sends it requests over IPC, one
 * answer per request, matched by id.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const INSTANCE = fileURLToPath(new URL('./servers/redis-instance.ts', import.meta.url));

interface Answer { id: number; result?: unknown; error?: string }

export class Instance {
  readonly #child: ChildProcess;
  readonly #waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #next = 1;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (answer: Answer) => {
      const waiter = this.#waiting.get(answer.id);
      this.#waiting.delete(answer.id);
      if (answer.error !== undefined) waiter?.reject(new Error(answer.error));
      else waiter?.resolve(answer.result);
    });
    child.on('exit', (code) => {
      for (const waiter of this.#waiting.values()) waiter.reject(new Error(`instance exited with ${String(code)}`));
      this.#waiting.clear();
    });
  }

  /** Forks an instance and waits until it can take requests (loading tsx and node-redis takes a moment). */
  static async fork(): Promise<Instance> {
    const child = fork(INSTANCE, [], {
      execArgv: ['--expose-gc', '--conditions=workflow-webhooks-source', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const instance = new Instance(child);
    await new Promise<void>((resolve, reject) => {
      instance.#waiting.set(0, { resolve: () => resolve(), reject });
    });
    return instance;
  }

  request<T = Record<string, number>>(op: string, fields: Record<string, unknown> = {}): Promise<T> {
    const id = this.#next;
    this.#next += 1;
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve: (value) => resolve(value as T), reject });
      this.#child.send({ id, op, ...fields });
    });
  }

  /** Closes the registry and ends the process (killed after 5 s if it hangs). */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await this.request('close').catch(() => undefined);
    await exited;
    clearTimeout(timer);
  }
}
