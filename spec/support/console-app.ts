/**
 * A host with the webhook middleware at /api/automation and the console at /admin/webhooks, in Express 5, Express 4
 * or Connect, listening on a loopback port: what the console's HTTP and browser specs talk to. The registry holds
 * several kinds of addresses: production (static, dynamic, guarded), a test listen, and a suspended run's wait.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import connect from 'connect';
import express5 from 'express';
import express4 from 'express4';
import {
  createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor, type WebhookMiddleware, type WebhookMiddlewareOptions,
  type WebhookRegistry, type WorkflowWebhooks,
} from '../../lib/index.js';
import { createWebhookConsole, type WebhookConsole, type WebhookConsoleOptions } from '../../lib/console/index.js';

export const WEBHOOK_BASE = '/api/automation';
export const CONSOLE_BASE = '/admin/webhooks';
export const WAITING_SECRET = 'console-spec-waiting-secret-0123456789';

type ConsoleHostName = 'Express 5' | 'Express 4' | 'Connect';
export const CONSOLE_HOSTS: ConsoleHostName[] = ['Express 5', 'Express 4', 'Connect'];

/** The workflows of the specs: one per kind of address and guard. */
export const CONSOLE_WORKFLOWS: WorkflowWebhooks[] = [
  { workflowId: 'orders', workflowName: 'Order intake', nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }] },
  {
    workflowId: 'status', workflowName: 'Order status',
    nodes: [{ name: 'Webhook', parameters: { path: 'orders/:orderId', multipleMethods: true, httpMethod: ['GET', 'PUT'], responseMode: 'lastNode' } }],
  },
  {
    workflowId: 'partner', workflowName: 'Partner feed',
    nodes: [{
      name: 'Partner hook',
      parameters: {
        path: 'partner', httpMethod: 'POST', authentication: 'headerAuth',
        options: { ipWhitelist: '127.0.0.1, 10.0.0.0/8', allowedOrigins: 'https://partner.example.com', ignoreBots: true },
      },
      credentials: { httpHeaderAuth: { id: '7', name: 'Partner API key' } },
    }],
  },
  { workflowId: 'failing', workflowName: 'Always fails', nodes: [{ name: 'Webhook', parameters: { path: 'fails', httpMethod: 'POST', responseMode: 'lastNode' } }] },
  { workflowId: 'approval', workflowName: 'Approval', nodes: [{ name: 'Webhook', parameters: { path: 'approve', httpMethod: 'POST' } }] },
  { workflowId: 'draft', workflowName: 'Signup (draft)', nodes: [{ name: 'Webhook', parameters: { path: 'signup', httpMethod: 'POST', responseMode: 'lastNode' } }] },
];

/** Runs the specs' workflows: `failing` throws, `approval` suspends, the rest echo what arrived. */
export const consoleExecutor: WebhookExecutor = async (run) => {
  if (run.workflowId === 'failing') throw new Error('The CRM refused the order');
  if (run.workflowId === 'approval' && run.resume === undefined) {
    await run.suspend({ state: { step: 1 }, expiresInMs: 60_000 });
    return { items: [] };
  }
  return { items: [{ json: { received: (run.items[0]?.json as { body?: unknown }).body ?? null } }] };
};

export interface ConsoleApp {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  registry: WebhookRegistry;
  middleware: WebhookMiddleware;
  console: WebhookConsole;
  close(): Promise<void>;
}

export interface ConsoleAppOptions {
  host?: ConsoleHostName;
  registry?: WebhookRegistry;
  executor?: WebhookExecutor;
  middleware?: WebhookMiddlewareOptions;
  /** The console's options beside registry and middleware; default `public: true` and the specs' workflows. */
  console?: Partial<WebhookConsoleOptions>;
  /** Activate every workflow but the draft (default true). */
  activate?: boolean;
  /** Headers the host sets on every answer before the console runs (its session cookie, its own security policy). */
  hostHeaders?: Record<string, string>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** The host's own first handler: sets its headers, as helmet or a session middleware would. */
function hostHeadersOf(headers: Record<string, string>): Handler {
  return (_req, res, next) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    next();
  };
}

function hostApp(name: ConsoleHostName, middleware: WebhookMiddleware, console: WebhookConsole, first: Handler): RequestListener {
  if (name === 'Connect') {
    const app = connect();
    app.use(first);
    app.use(WEBHOOK_BASE, middleware);
    app.use(CONSOLE_BASE, console);
    return app as unknown as RequestListener;
  }
  if (name === 'Express 4') {
    const app = express4();
    app.use(first);
    app.get('/api/orders', (_req, res) => { res.json([]); });
    app.use(WEBHOOK_BASE, middleware);
    app.use(CONSOLE_BASE, console);
    return app;
  }
  const app = express5();
  app.use(first);
  app.get('/api/orders', (_req, res) => { res.json([]); });
  app.use(WEBHOOK_BASE, middleware);
  app.use(CONSOLE_BASE, console);
  return app;
}

export async function startConsoleApp(options: ConsoleAppOptions = {}): Promise<ConsoleApp> {
  const registry = options.registry ?? new MemoryWebhookRegistry();
  if (options.activate ?? true) {
    for (const workflow of CONSOLE_WORKFLOWS.filter((one) => one.workflowId !== 'draft')) await registry.activate(workflow);
  }
  const middleware = createWebhookMiddleware(registry, options.executor ?? consoleExecutor, {
    openApi: { path: '/openapi.json', title: 'Spec hooks', version: '1.0.0' },
    waitingSecret: WAITING_SECRET,
    logger: { error: () => undefined, warn: () => undefined },
    ...options.middleware,
  });
  const console = createWebhookConsole({
    registry, middleware, webhookUrl: WEBHOOK_BASE, public: true,
    workflows: new Map(CONSOLE_WORKFLOWS.map((workflow) => [workflow.workflowId, workflow])),
    ...options.console,
  } as WebhookConsoleOptions);
  const server: Server = createServer(hostApp(options.host ?? 'Express 5', middleware, console, hostHeadersOf(options.hostHeaders ?? {})));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin, registry, middleware, console,
    async close() {
      await console.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await middleware.close({ timeoutMs: 100 });
    },
  };
}
