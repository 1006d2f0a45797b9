/**
 * Queue mode in the mocha process for the behaviour specs: one redis-server per spec file, and queues, workers and
 * middleware built with a queue name of their own per test, all closed after it, so no test sees another's jobs and
 * mocha exits by itself.
 */
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import express from 'express';
import { createClient } from 'redis';
import { createWebhookMiddleware, type WebhookExecutor, type WebhookMiddlewareOptions, type WebhookRegistry } from 'workflow-webhooks';
import {
  createWebhookQueue, createWebhookWorker, type WebhookQueue, type WebhookQueueOptions, type WebhookWorker, type WebhookWorkerOptions,
} from 'workflow-webhooks/queue';
import { RedisServer } from '../redis-server.js';

export const BASE = '/hooks';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };

function newClient(url: string) {
  const made = createClient({ url });
  made.on('error', () => undefined);
  return made;
}

type Client = ReturnType<typeof newClient>;

export interface QueueSetup {
  readonly server: RedisServer;
  /** A connected client of the spec's own, for looking into Redis. */
  readonly redis: Client;
  /** The queue name of the current test. */
  readonly name: string;
  queue(options?: Partial<WebhookQueueOptions>): WebhookQueue;
  worker(executor: WebhookWorkerOptions['executor'], options?: Partial<WebhookWorkerOptions>): WebhookWorker;
  /** An Express 5 app with the middleware under BASE, in front of the given queue. */
  app(registry: WebhookRegistry, queue: WebhookQueue, options?: WebhookMiddlewareOptions): RequestListener;
}

/** Call inside a describe: the redis-server is started before its tests and stopped after them. */
export function queueSetup(server: () => RedisServer): QueueSetup {
  const closers: (() => Promise<unknown>)[] = [];
  let name = '';
  let redis: Client | undefined;
  const client = (): Client => newClient(server().url);

  before(async () => {
    redis = client();
    await redis.connect();
  });
  beforeEach(() => { name = `spec-${randomUUID().slice(0, 8)}`; });
  afterEach(async () => {
    // Middleware first (it answers what is in flight), then workers and queues.
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });
  // destroy(), not quit(): the spec may have stopped its redis-server already, and quit() would wait for it.
  after(() => { redis?.destroy(); });

  return {
    get server() { return server(); },
    get redis() { return redis as Client; },
    get name() { return name; },
    queue(options = {}) {
      const queue = createWebhookQueue({ connection: client(), name, logger: SILENT, ...options });
      closers.push(() => queue.close());
      return queue;
    },
    worker(executor, options = {}) {
      const worker = createWebhookWorker({ connection: client(), name, executor, logger: SILENT, ...options });
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

/** Polls until `probe` holds, for at most `ms`. */
export async function eventually(probe: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!await probe()) {
    if (Date.now() > until) throw new Error(`not true within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
