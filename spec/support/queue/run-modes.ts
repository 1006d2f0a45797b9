/**
 * The two ways a run can execute, for the specs that must answer alike in both: in process, and through queue mode
 * (a BullMQ job run by a worker in this process). One redis-server serves the whole mocha run; every queue and
 * worker a test builds is closed after it. Without redis-server the queue mode's specs are listed as not run.
 */
import { randomUUID } from 'node:crypto';
import type { WebhookExecutor } from '../../../lib/index.js';
import { createWebhookQueue, createWebhookWorker, directoryBinaryStore, type WebhookQueue } from '../../../lib/queue/index.js';
import { makeTempDir, type TempDir } from '../temp-dir.js';
import { RedisServer, REDIS } from '../redis-server.js';
import { findService, markNotRun } from '../services.js';

export interface RunMode {
  /** Appended to a describe's name: '' in process, ' (queue mode)' through the queue. */
  suffix: string;
  queued: boolean;
  /** Registers the mode's hooks; call it first inside the describe that uses `executor()`. */
  hooks(): void;
  /** The executor to give the middleware: the same one, or the queue's, whose worker runs the same one. */
  executor(executor: WebhookExecutor): WebhookExecutor;
  /** Resolves once every run handed off so far has ended (an onReceived run goes on after its answer). */
  settled(): Promise<void>;
  /**
   * Where a run's files wait between the worker and the web side in queue mode (the binary store's directory): a
   * file answer is streamed from the copy there, not from the file the workflow named. Undefined in process.
   */
  readonly binaryDirectory: string | undefined;
}

const SILENT = { error: (): void => undefined, warn: (): void => undefined };
let server: Promise<RedisServer | undefined> | undefined;
let url = '';

// One server for the run, stopped with it (a root hook: registered outside any describe).
after(async () => { await (await server)?.stop(); });

const IN_PROCESS: RunMode = {
  suffix: '', queued: false, hooks: () => undefined, executor: (executor) => executor, settled: () => Promise.resolve(), binaryDirectory: undefined,
};

function queueMode(): RunMode {
  const closers: (() => Promise<unknown>)[] = [];
  const queues: WebhookQueue[] = [];
  let shared: TempDir | undefined;
  return {
    suffix: ' (queue mode)',
    queued: true,
    get binaryDirectory() { return shared?.path; },
    hooks() {
      before(async () => {
        server ??= RedisServer.start();
        url = (await server as RedisServer).url;
        shared = makeTempDir();
      });
      afterEach(async () => {
        queues.length = 0;
        for (const close of closers.splice(0)) await close().catch(() => undefined);
      });
      after(() => { shared?.remove(); });
    },
    executor(executor) {
      const name = `parity-${randomUUID().slice(0, 8)}`;
      // One attempt: in process a failing run answers its caller at once, and so must this one. A shared directory
      // takes what does not fit in a job, as in process the disk takes what does not fit in memory.
      const binaryStore = directoryBinaryStore({ directory: (shared as TempDir).path });
      const queue = createWebhookQueue({ connection: url, name, attempts: 1, logger: SILENT, binaryStore });
      const worker = createWebhookWorker({ connection: url, name, executor, concurrency: 20, logger: SILENT, binaryStore });
      closers.push(() => worker.close({ timeoutMs: 200 }), () => queue.close());
      queues.push(queue);
      return queue.executor;
    },
    async settled() {
      for (const queue of queues) {
        await queue.ready();
        for (let tries = 0; tries < 500; tries += 1) {
          const counts = await queue.bullQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
          if (Object.values(counts).every((count) => count === 0)) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    },
  };
}

/** In process always; through the queue too where redis-server is at hand. */
export function runModes(what: string): RunMode[] {
  if (findService(REDIS) !== undefined) return [IN_PROCESS, queueMode()];
  markNotRun(`${what} (queue mode)`, REDIS);
  return [IN_PROCESS];
}

/** In process every host; through the queue one host is enough (the queue changes no host-facing code). */
export function hostsOf<H>(mode: RunMode, hosts: readonly H[]): readonly H[] {
  return mode.queued ? hosts.slice(0, 1) : hosts;
}
