/**
 * One lastNode workflow served by an Express app through a web queue and a worker on PostgreSQL: the wiring the TLS
 * and least-privilege specs share, each giving its own connections, options and executor. Everything it opens is
 * handed to `closers`, which the spec runs after each test, whatever happened.
 */
import express, { type Express } from 'express';
import { createWebhookMiddleware, type WebhookExecutor } from 'workflow-webhooks';
import type { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { createWebhookQueue, createWebhookWorker, type WebhookQueueOptions, type WebhookWorkerOptions } from 'workflow-webhooks/queue';

const SILENT = { warn: (): void => undefined, error: (): void => undefined };

export interface QueueApp {
  registry: PostgresWebhookRegistry;
  /** The workflow's id and its address (`POST /hooks/webhook/<name>`). */
  name: string;
  queue: WebhookQueueOptions;
  worker: Omit<WebhookWorkerOptions, 'executor'>;
  executor: WebhookExecutor;
  closers: Array<() => Promise<unknown>>;
}

/** Activates the workflow, starts the queue and the worker, and resolves the app once both are connected. */
export async function lastNodeThroughQueue({ registry, name, queue: queueOptions, worker: workerOptions, executor, closers }: QueueApp): Promise<Express> {
  await registry.activate({ workflowId: name, nodes: [{ name: 'Webhook', parameters: { path: name, httpMethod: 'POST', responseMode: 'lastNode' } }] });
  const queue = createWebhookQueue(queueOptions);
  closers.push(() => queue.close());
  const worker = createWebhookWorker({ ...workerOptions, executor });
  closers.push(() => worker.close({ timeoutMs: 1000 }));
  await Promise.all([queue.ready(), worker.ready()]);
  const middleware = createWebhookMiddleware(registry, queue.executor, { logger: SILENT });
  closers.push(() => middleware.close({ timeoutMs: 500 }));
  const app = express();
  app.use('/hooks', middleware);
  return app;
}
