/**
 * An existing backend — a small orders API with routes of its own — that adds workflow webhooks with one
 * `app.use()` under its own base path. The registry is the host's choice: in-process by default, or one shared by
 * several instances (server.ts passes a RedisWebhookRegistry when REDIS_URL is set).
 */
import express from 'express';
import {
  createWebhookMiddleware, MemoryHistoryStore, MemoryWebhookRegistry, type WebhookExecutor, type WebhookMiddleware, type WebhookRegistry, type WorkflowWebhooks,
} from 'workflow-webhooks';
import { createExecutor, type Step } from './executor.js';
import { addEditorRoutes } from './editor.js';
import { addConsole, type ExampleConsoleOptions } from './console.js';
import { addLongWork, type ReportJobs } from './long-work.js';
import { APPROVAL_WORKFLOW, approvalSteps } from './approval.js';
import { CALLBACK_DRAFT, callbackSteps } from './callback.js';
import { addMetrics } from './metrics.js';

interface Order { id: number; item: string; status: string }

export interface OrdersAppOptions {
  /** Time one step of the long-work report takes (default 1000 ms; specs use less). */
  reportStepMs?: number;
  /** Where webhooks live. Default: a new MemoryWebhookRegistry of this app alone. */
  registry?: WebhookRegistry;
  /**
   * Whether this instance activates the workflows before it serves (default true). With a shared registry one
   * instance activating is enough; the others still define every workflow's steps, since a call may reach any of them.
   */
  activate?: boolean;
  /** Sent as the `x-instance` response header, so a caller sees which instance answered. */
  instance?: string;
  /**
   * Queue mode: given this app's own executor (its workflows' steps), returns the executor to mount, e.g. the
   * queue's; a worker process takes the app's own one from here too. Default: the app's own, in process.
   */
  executor?: (own: WebhookExecutor) => WebhookExecutor;
  /** Queue mode: where the long-work report's status is read from (the job itself). */
  jobs?: ReportJobs;
  /** Signs the approval links (the same on every instance). Default: the example's own, for development only. */
  waitingSecret?: string;
  /** The webhook console at /admin/webhooks: queue mode's queue, a shared call log, the instance's name. */
  console?: ExampleConsoleOptions;
  /** Gets the mounted middleware, so that a shutdown can close it (answering what is in flight) before what it uses. */
  mounted?: (middleware: WebhookMiddleware) => void;
}

/** The example's development secret; a real backend reads its own from its secret store. */
export const EXAMPLE_WAITING_SECRET = 'example-app-waiting-secret-for-development-only';

/** Builds the orders API with its webhooks; the workflows are activated (unless told not to) before it serves. */
export async function createOrdersApp(options: OrdersAppOptions = {}): Promise<express.Express> {
  const orders: Order[] = [{ id: 1, item: 'Coffee beans', status: 'shipped' }];
  const registry = options.registry ?? new MemoryWebhookRegistry();
  const activate = options.activate ?? true;
  const steps = new Map<string, Step[]>();
  /** Every workflow this app knows how to run: the editor routes activate and deactivate these by id. */
  const known = new Map<string, WorkflowWebhooks>();

  async function define(workflow: WorkflowWebhooks, workflowSteps: Step[]): Promise<void> {
    known.set(workflow.workflowId, workflow);
    steps.set(workflow.workflowId, workflowSteps);
    if (activate) await registry.activate(workflow);
  }

  const app = express();
  const { instance } = options;
  if (instance !== undefined) {
    // Before every route, so that webhook answers carry it too (the middleware keeps headers the host set).
    app.use((_req, res, next) => { res.setHeader('x-instance', instance); next(); });
  }
  app.use('/api/orders', express.json());
  app.get('/api/orders', (_req, res) => { res.json(orders); });

  // The spec's string-response recipe: Webhook (When Last Node Finishes, First Entry JSON, Property Name `data`)
  // → Edit Fields with Keep Only Set, setting `data` to a text.
  await define({
    workflowId: 'greeting',
    workflowName: 'Greeting',
    nodes: [{
      name: 'Webhook',
      parameters: {
        path: 'hello',
        httpMethod: 'GET',
        responseMode: 'lastNode',
        responseData: 'firstEntryJson',
        options: { responsePropertyName: 'data' },
      },
    }],
  }, [{ type: 'editFields', keepOnlySet: true, fields: { data: 'Hello {{query.name}}, this text came from the workflow.\n' } }]);

  // A workflow that feeds the host's own data: it answers at once and records the order in the background.
  await define({
    workflowId: 'order-intake',
    workflowName: 'Order intake',
    nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }],
  }, [{
    type: 'code',
    run(items) {
      const body = items[0]?.json.body as { item?: unknown } | undefined;
      const order = { id: orders.length + 1, item: String(body?.item ?? 'unknown'), status: 'new' };
      orders.push(order);
      return [{ json: { ...order } }];
    },
  }]);

  // A dynamic path whose `:orderId` arrives in params; multi-method: GET reads (output 0), PUT updates (output 1).
  await define({
    workflowId: 'order-status',
    workflowName: 'Order status',
    nodes: [{ name: 'Webhook', parameters: { path: 'orders/:orderId', multipleMethods: true, httpMethod: ['GET', 'PUT'], responseMode: 'lastNode' } }],
  }, [{
    type: 'code',
    run(items) {
      const json = items[0]?.json as { params: { orderId: string }; body: { status?: unknown } };
      const order = orders.find((candidate) => String(candidate.id) === json.params.orderId);
      if (order === undefined) return [{ json: { error: `No order ${json.params.orderId}` } }];
      if (typeof json.body.status === 'string') order.status = json.body.status;
      return [{ json: { ...order } }];
    },
  }]);

  // The approval pattern: a run that suspends on a signed link and continues when it is clicked.
  await define(APPROVAL_WORKFLOW, approvalSteps());

  const longWork = { stepMs: options.reportStepMs ?? 1000, activate, ...(options.jobs === undefined ? {} : { jobs: options.jobs }) };
  for (const workflow of await addLongWork(registry, steps, longWork)) {
    known.set(workflow.workflowId, workflow);
  }

  // Known but left inactive: it wants the address of Order intake, so activating it in /editor shows the conflict.
  known.set('order-intake-v2', {
    workflowId: 'order-intake-v2',
    workflowName: 'Order intake v2',
    nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST', responseMode: 'lastNode' } }],
  });
  steps.set('order-intake-v2', [{ type: 'editFields', keepOnlySet: true, fields: { received: '{{body.item}}' } }]);

  // A draft the editor tests before anyone activates it: only its test address ever listens.
  const drafts = new Map<string, WorkflowWebhooks>([['signup', {
    workflowId: 'signup',
    workflowName: 'Signup (draft)',
    nodes: [{ name: 'Webhook', parameters: { path: 'signup', httpMethod: 'POST' as const, responseMode: 'lastNode' as const } }],
  }]]);
  steps.set('signup', [{ type: 'editFields', keepOnlySet: true, fields: { welcome: 'Welcome, {{body.name}}!' } }]);
  // The draft /editor opens with: the node's defaults with both methods allowed (GET and POST), answering at once.
  drafts.set('inbox', {
    workflowId: 'inbox',
    workflowName: 'Inbox (draft)',
    nodes: [{ name: 'Webhook', parameters: { path: 'inbox', multipleMethods: true, httpMethod: ['GET', 'POST'] } }],
  });
  steps.set('inbox', [{ type: 'editFields', keepOnlySet: true, fields: { handledBy: 'the inbox draft' } }]);
  // A draft whose run waits, inside the run, for a service to call back at its resume address.
  drafts.set(CALLBACK_DRAFT.workflowId, CALLBACK_DRAFT);
  steps.set(CALLBACK_DRAFT.workflowId, callbackSteps());
  addEditorRoutes(app, registry, { drafts, workflows: known });

  // Calls, durations and runs of the webhooks, for Prometheus at /metrics.
  const telemetry = addMetrics(app);
  // The webhooks' OpenAPI document at /api/automation/openapi.json, for the teams that call them.
  const own = createExecutor(steps);
  const middleware = createWebhookMiddleware(registry, options.executor?.(own) ?? own, {
    openApi: { path: '/openapi.json', title: 'Orders automation', version: '1.0.0' },
    waitingSecret: options.waitingSecret ?? EXAMPLE_WAITING_SECRET,
    telemetry,
    // Every call kept for the console's History section (bodies up to 64 kB), to find one and replay it after a fix.
    history: { store: new MemoryHistoryStore(), bodyBytes: 65_536, answerBytes: 16_384 },
  });
  app.use('/api/automation', middleware);
  options.mounted?.(middleware);
  // The console for whoever runs these webhooks: /admin/webhooks. Every workflow and draft can listen from it.
  addConsole(app, { registry, middleware, workflows: () => [...known.values(), ...drafts.values()] }, {
    ...(instance === undefined ? {} : { instance }),
    ...options.console,
  });
  return app;
}
