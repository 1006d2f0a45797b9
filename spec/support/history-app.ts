/**
 * An Express 5 host whose webhook middleware keeps calls in a MemoryHistoryStore, listening on a loopback port: what
 * the specs of spec/webhooks/history/ call over HTTP and then read back through `middleware.history`.
 */
import express from 'express';
import {
  createWebhookMiddleware, MemoryHistoryStore, MemoryWebhookRegistry, type HistoryEntry, type HistoryOptions, type WebhookError,
  type WebhookExecutor, type WebhookHistory, type WebhookMiddleware, type WebhookMiddlewareOptions, type WebhookRun, type WorkflowWebhooks,
} from '../../lib/index.js';
import { listen } from './raw-http.js';

export const HOOK_BASE = '/api/automation';

export interface HistoryApp {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  registry: MemoryWebhookRegistry;
  middleware: WebhookMiddleware;
  history: WebhookHistory;
  store: MemoryHistoryStore;
  /** Every run the executor got, replays included. */
  runs: WebhookRun[];
  /** What onWorkflowError heard. */
  workflowErrors: WebhookError[];
  /** `${origin}/api/automation/webhook/<path>` */
  url(path: string, prefix?: string): string;
  /** Writes the pending batch and lists every kept call, newest first. */
  kept(): Promise<HistoryEntry[]>;
  close(): Promise<void>;
}

export interface HistoryAppOptions {
  workflows: WorkflowWebhooks[];
  /** Default: answers with the trigger items. */
  executor?: WebhookExecutor;
  /** Beside `store` (a new MemoryHistoryStore unless given). */
  history?: Partial<HistoryOptions>;
  /** The middleware's other options. */
  middleware?: Omit<WebhookMiddlewareOptions, 'history'>;
}

export async function startHistoryApp(options: HistoryAppOptions): Promise<HistoryApp> {
  const registry = new MemoryWebhookRegistry();
  for (const workflow of options.workflows) await registry.activate(workflow);
  const runs: WebhookRun[] = [];
  const workflowErrors: WebhookError[] = [];
  const executor = options.executor ?? ((run: WebhookRun) => ({ items: run.items }));
  const store = (options.history?.store as MemoryHistoryStore | undefined) ?? new MemoryHistoryStore();
  const middleware = createWebhookMiddleware(registry, (run) => {
    runs.push(run);
    return executor(run);
  }, {
    logger: { error: () => undefined, warn: () => undefined },
    onWorkflowError: (error) => { workflowErrors.push(error); },
    ...options.middleware,
    history: { instance: 'spec-instance', ...options.history, store },
  });
  const app = express();
  app.use(HOOK_BASE, middleware);
  const server = await listen(app);
  const origin = `http://127.0.0.1:${server.port}`;
  const history = middleware.history as WebhookHistory;
  return {
    origin, registry, middleware, history, store, runs, workflowErrors,
    url: (path, prefix = 'webhook') => `${origin}${HOOK_BASE}/${prefix}/${path}`,
    async kept() {
      await history.flush();
      return (await history.find({}, { limit: 500 })).entries;
    },
    async close() {
      await server.close();
      await middleware.close({ timeoutMs: 1000 });
    },
  };
}

/** POSTs JSON (or the given body) and reads the answer whole. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const answer = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  return { status: answer.status, text: await answer.text() };
}

/** A workflow of one Webhook node at `path`. */
export function hookWorkflow(workflowId: string, path: string, parameters: Partial<WorkflowWebhooks['nodes'][number]['parameters']> = {},
  extra: Partial<WorkflowWebhooks> = {}): WorkflowWebhooks {
  return { workflowId, nodes: [{ name: 'Webhook', parameters: { path, httpMethod: 'POST', responseMode: 'lastNode', ...parameters } }], ...extra };
}
