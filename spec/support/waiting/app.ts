/**
 * A backend with waiting webhooks for the specs: the middleware under the base path, a workflow whose trigger is
 * `POST start`, the events it emits, and a way to learn each resume address as a run starts waiting.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  type WebhookEvent,
  type WebhookExecutor,
  type WebhookMiddlewareOptions,
  type WebhookRegistry,
  type ResponseMode,
} from '../../../lib/index.js';
import type { Host } from '../apps.js';

export const SECRET = 'a-waiting-secret-of-at-least-32-characters';

export interface WaitingApp {
  server: Server;
  registry: WebhookRegistry;
  events: WebhookEvent[];
  /** Resolves with the path (and query) of the next resume address a run starts waiting at. */
  nextWait(): Promise<string>;
  close(): Promise<void>;
}

/** The path and query of an absolute resume address, for supertest. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

export async function waitingApp(
  host: Host,
  executor: WebhookExecutor,
  options: WebhookMiddlewareOptions & { responseMode?: ResponseMode; registry?: WebhookRegistry } = {},
): Promise<WaitingApp> {
  const { responseMode = 'lastNode', registry = new MemoryWebhookRegistry(), ...middlewareOptions } = options;
  await registry.activate({ workflowId: 'approval', nodes: [{ name: 'Webhook', parameters: { path: 'start', httpMethod: 'POST', responseMode } }] });
  const events: WebhookEvent[] = [];
  const waiters: ((url: string) => void)[] = [];
  const urls: string[] = [];
  const middleware = createWebhookMiddleware(registry, executor, {
    waitingSecret: SECRET,
    logger: { error: () => undefined, warn: () => undefined },
    ...middlewareOptions,
    onEvent: (event) => {
      events.push(event);
      middlewareOptions.onEvent?.(event);
    },
  });
  const server = createServer(host.build(middleware));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const app: WaitingApp = {
    server,
    registry,
    events,
    nextWait: () => new Promise<string>((resolve) => {
      const next = urls.shift();
      if (next === undefined) waiters.push(resolve);
      else resolve(next);
    }),
    close: async () => {
      await middleware.close({ timeoutMs: 100 });
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
    },
  };
  // The address reaches the spec as the executor publishes it (resumeUrl), read through the port the server got.
  (app as { publish?: (url: string) => void }).publish = (url) => {
    const waiter = waiters.shift();
    if (waiter === undefined) urls.push(pathOf(url));
    else waiter(pathOf(url));
  };
  return app;
}

/** Lets an executor hand its resume address to the spec. */
export function publish(app: WaitingApp, url: string): void {
  (app as { publish?: (url: string) => void }).publish?.(url);
}

export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
