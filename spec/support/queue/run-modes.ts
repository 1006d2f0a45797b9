/**
 * The ways a run can execute, for the specs that must answer alike in each: in process, and through queue mode (a
 * BullMQ job run by a worker in this process) on Redis and, for the specs of answers sent from a worker, on
 * PostgreSQL. One redis-server and one PostgreSQL server serve the whole mocha run; every queue and worker a test
 * builds is closed after it. Without a server its queue mode's specs are listed as not run.
 */
import { randomUUID } from 'node:crypto';
import type { WebhookExecutor } from '../../../lib/index.js';
import { createWebhookQueue, createWebhookWorker, directoryBinaryStore, type WebhookQueue } from '../../../lib/queue/index.js';
import { makeTempDir, type TempDir } from '../temp-dir.js';
import { POSTGRES, sharedPostgres } from '../postgres-server.js';
import { RedisServer, REDIS } from '../redis-server.js';
import { findService, markNotRun } from '../services.js';

export interface RunMode {
  /** Appended to a describe's name: '' in process, ' (queue mode)' through the queue on Redis, ' (queue mode on PostgreSQL)'. */
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

// One redis-server for the run, stopped with it (a root hook: registered outside any describe). The PostgreSQL
// server is the run's shared one, stopped when the process exits.
after(async () => { await (await server)?.stop(); });

/** The URL of the run's server of each store, started on first use. */
const STORE_URLS = {
  redis: async (): Promise<string> => {
    server ??= RedisServer.start();
    return (await server as RedisServer).url;
  },
  postgres: async (): Promise<string> => (await sharedPostgres())?.url as string,
};

const IN_PROCESS: RunMode = {
  suffix: '', queued: false, hooks: () => undefined, executor: (executor) => executor, settled: () => Promise.resolve(), binaryDirectory: undefined,
};

function queueMode(store: keyof typeof STORE_URLS): RunMode {
  const closers: (() => Promise<unknown>)[] = [];
  const queues: WebhookQueue[] = [];
  let shared: TempDir | undefined;
  let url = '';
  return {
    suffix: store === 'redis' ? ' (queue mode)' : ' (queue mode on PostgreSQL)',
    queued: true,
    get binaryDirectory() { return shared?.path; },
    hooks() {
      before(async function () {
        // initdb and the first start of the shared PostgreSQL server take seconds on a loaded machine.
        this.timeout(120_000);
        url = await STORE_URLS[store]();
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

/**
 * In process always; through the queue too where redis-server is at hand, and with `onPostgres` (the specs of answers
 * sent from a worker) on PostgreSQL too where its server is.
 */
export function runModes(what: string, { onPostgres = false }: { onPostgres?: boolean } = {}): RunMode[] {
  const modes = [IN_PROCESS];
  if (findService(REDIS) !== undefined) modes.push(queueMode('redis'));
  else markNotRun(`${what} (queue mode)`, REDIS);
  if (!onPostgres) return modes;
  if (findService(POSTGRES) !== undefined) modes.push(queueMode('postgres'));
  else markNotRun(`${what} (queue mode on PostgreSQL)`, POSTGRES);
  return modes;
}

/** In process every host; through the queue one host is enough (the queue changes no host-facing code). */
export function hostsOf<H>(mode: RunMode, hosts: readonly H[]): readonly H[] {
  return mode.queued ? hosts.slice(0, 1) : hosts;
}
