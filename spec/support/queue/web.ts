/**
 * The web side of queue mode as the fault specs run it: one onReceived workflow, the queue's executor behind the
 * middleware, and a node:http server, on Redis or on PostgreSQL. The crash specs run it in child processes
 * (web-entry.ts), the other fault specs in the mocha process; both get the very same server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, createSentinel } from 'redis';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddlewareOptions } from 'workflow-webhooks';
import { createWebhookQueue, type WebhookQueue } from 'workflow-webhooks/queue';

/** Where the one workflow listens: POST /webhook/fault-hook, answered as soon as the run is stored. */
export const HOOK_PATH = '/webhook/fault-hook';
/**
 * With `idempotent`, a second workflow: POST /webhook/once-hook answers with the run's last node (lastNode), and a
 * call's `Idempotency-Key` header makes repeats of it one run.
 */
export const ONCE_PATH = '/webhook/once-hook';

/** The logger shape the library takes (pino's or console's); the package names it only through its options. */
type WebhookLogger = NonNullable<WebhookMiddlewareOptions['logger']>;

export interface WebOptions {
  /** Redis: where the queue keeps its jobs (through a host client of its own). */
  redisUrl?: string;
  /** PostgreSQL instead of Redis: a postgres:// URL, given to the queue as its connection. */
  databaseUrl?: string;
  /** Behind Sentinel instead of redisUrl: the name the sentinels watch, and where they are. */
  sentinel?: SentinelAddress;
  /** The queue's replica acknowledgement (option replicas). */
  replicas?: number;
  queueName: string;
  enqueueTimeoutMs: number;
  /** Default: log lines dropped, only counted (a fault spec provokes hundreds of them on purpose). */
  logger?: WebhookLogger;
  /** Also serve the lastNode workflow at ONCE_PATH, with settings.idempotencyHeader. */
  idempotent?: boolean;
  /** Default true: the server listens once the queue is connected; false: at once (a store still away answers 503). */
  awaitReady?: boolean;
}

export interface RunningWeb {
  port: number;
  queue: WebhookQueue;
  close(): Promise<void>;
}

/** Where the sentinels of a Sentinel group are, as a process gets it in SENTINEL (JSON). */
export interface SentinelAddress {
  name: string;
  nodes: Array<{ host: string; port: number }>;
}

/**
 * The host's own client, with its own 'error' listener (without one an outage would crash the process): a plain
 * client on `url`, or a Sentinel client when `sentinel` is given.
 */
export function hostClient(url: string, sentinel?: SentinelAddress): ReturnType<typeof createClient> {
  const client = sentinel === undefined ? createClient({ url }) : createSentinel({ name: sentinel.name, sentinelRootNodes: sentinel.nodes });
  client.on('error', () => undefined);
  // The queue and worker take every node-redis kind; the fixtures keep to the plain client's type.
  return client as unknown as ReturnType<typeof createClient>;
}

/** A logger that keeps only a count, so an outage does not flood the test output. */
export function countingLogger(): WebhookLogger & { lines: number } {
  const logger = { lines: 0, error: () => { logger.lines += 1; }, warn: () => { logger.lines += 1; } };
  return logger;
}

export async function startWeb(options: WebOptions): Promise<RunningWeb> {
  const logger = options.logger ?? countingLogger();
  const client = options.databaseUrl === undefined ? hostClient(options.redisUrl as string, options.sentinel) : undefined;
  const queue = createWebhookQueue({
    connection: client ?? options.databaseUrl as string, name: options.queueName, enqueueTimeoutMs: options.enqueueTimeoutMs, retryAfterSeconds: 2, logger,
    ...(options.replicas === undefined ? {} : { replicas: options.replicas }),
  });
  if (options.awaitReady !== false) await queue.ready();
  const registry = new MemoryWebhookRegistry();
  await registry.activate({
    workflowId: 'fault-workflow',
    nodes: [{ name: 'Webhook', parameters: { path: 'fault-hook', httpMethod: 'POST', responseMode: 'onReceived' } }],
  });
  if (options.idempotent === true) {
    await registry.activate({
      workflowId: 'once-workflow',
      nodes: [{ name: 'Webhook', parameters: { path: 'once-hook', httpMethod: 'POST', responseMode: 'lastNode' } }],
      settings: { idempotencyHeader: true },
    });
  }
  const middleware = createWebhookMiddleware(registry, queue.executor, { logger });
  const server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
  // The load keeps its connections open; an idle one closed by the server mid-request would read as a fault.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    queue,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await middleware.close({ timeoutMs: 1000 });
      await queue.close();
      // The queue only duplicated it: this client was never opened, and destroying it may say so.
      try { client?.destroy(); } catch { /* never opened */ }
    },
  };
}
