/**
 * Queue mode in the mocha process for the behaviour specs: queues, workers and middleware built with a queue name of
 * their own per test, all closed after it, so no test sees another's jobs and mocha exits by itself. `queueSetup`
 * runs on one redis-server (or one topology: a cluster, a Sentinel group) a spec started; stores.ts runs the same on
 * any queue store, PostgreSQL included.
 */
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import express from 'express';
import { createClient } from 'redis';
import { createWebhookMiddleware, type WebhookExecutor, type WebhookMiddlewareOptions, type WebhookRegistry } from 'workflow-webhooks';
import {
  createWebhookQueue, createWebhookWorker, type WebhookQueue, type WebhookQueueOptions, type WebhookWorker, type WebhookWorkerOptions,
} from 'workflow-webhooks/queue';
import { sendVia, topologyOf } from '../../../lib/redis/topology.js';
import { RedisServer } from '../redis-server.js';
import type { RunningTopology } from '../redis/topologies.js';

export const BASE = '/hooks';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };

function newClient(url: string) {
  const made = createClient({ url });
  made.on('error', () => undefined);
  return made;
}

type Client = ReturnType<typeof newClient>;

/** What a spec builds on any store: the queue, workers and apps of the current test. */
export interface QueueParts {
  /** The queue name of the current test. */
  readonly name: string;
  queue(options?: Partial<WebhookQueueOptions>): WebhookQueue;
  worker(executor: WebhookWorkerOptions['executor'], options?: Partial<WebhookWorkerOptions>): WebhookWorker;
  /** An Express 5 app with the middleware under BASE, in front of the given queue. */
  app(registry: WebhookRegistry, queue: WebhookQueue, options?: WebhookMiddlewareOptions): RequestListener;
}

/** What only Redis has: its server to pause, a client to look into its keys. */
export interface QueueSetup extends QueueParts {
  /** The redis-server (a spec on one redis-server only: it pauses and kills it). */
  readonly server: RedisServer;
  /** A connected client of the spec's own, for looking into Redis (of the topology's kind; see `send`). */
  readonly redis: Client;
  /** The prefix the queue's keys start with: `bull`, or `{bull}` on a cluster. */
  readonly prefix: string;
  /** Sends a raw command with the spec's client to the node that holds the current queue's keys. */
  send(args: string[]): Promise<unknown>;
}

/**
 * Call inside a describe: builds on `connection()` (a new connection to the store for each queue and worker), with a
 * fresh queue name for each test and everything built closed after it.
 */
export function queueParts(connection: () => WebhookQueueOptions['connection'], defaults: Partial<WebhookQueueOptions> = {}): QueueParts {
  const closers: (() => Promise<unknown>)[] = [];
  let name = '';
  beforeEach(() => { name = `spec-${randomUUID().slice(0, 8)}`; });
  afterEach(async () => {
    // Middleware first (it answers what is in flight), then workers and queues.
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });
  return {
    get name() { return name; },
    queue(options = {}) {
      const queue = createWebhookQueue({ connection: connection(), name, logger: SILENT, ...defaults, ...options });
      closers.push(() => queue.close());
      return queue;
    },
    worker(executor, options = {}) {
      const worker = createWebhookWorker({ connection: connection(), name, executor, logger: SILENT, ...options });
      closers.push(() => worker.close({ timeoutMs: 1000 }));
      return worker;
    },
    app(registry, queue, options = {}) {
      // Quiet by default: these specs provoke failures and refusals on purpose.
      const middleware = createWebhookMiddleware(registry, queue.executor as WebhookExecutor, { logger: SILENT, ...options });
      closers.push(() => middleware.close({ timeoutMs: 500 }));
      const app = express();
      app.use(BASE, middleware);
      return app;
    },
  };
}

/**
 * Call inside a describe: the redis-server or topology is started before its tests and stopped after them. `defaults`
 * go to every queue before a test's own options.
 */
export function queueSetup(server: () => RedisServer | RunningTopology, defaults: Partial<WebhookQueueOptions> = {}): QueueSetup {
  let redis: Client | undefined;
  const client = (): Client => {
    const source = server();
    return source instanceof RedisServer ? newClient(source.url) : source.make() as Client;
  };
  const topology = (): ReturnType<typeof topologyOf> => topologyOf(redis as Client);

  before(async () => {
    redis = client();
    await redis.connect();
  });
  const parts = queueParts(client, defaults);
  // destroy(), not quit(): the spec may have stopped its redis-server already, and quit() would wait for it.
  after(() => { redis?.destroy(); });

  return {
    get name() { return parts.name; },
    queue: parts.queue,
    worker: parts.worker,
    app: parts.app,
    get server() {
      const source = server();
      return source instanceof RedisServer ? source : source.server as RedisServer;
    },
    get redis() { return redis as Client; },
    get prefix() { return topology() === 'cluster' ? '{bull}' : 'bull'; },
    send(args) { return sendVia(redis as Client, topology(), args, `${this.prefix}:${parts.name}:`); },
  };
}

/** Polls until `probe` holds, for at most `ms`. */
export async function eventually(probe: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!await probe()) {
    if (Date.now() > until) throw new Error(`not true within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
