/**
 * An existing backend — a small orders API with routes of its own — that adds workflow webhooks with one
 * `app.use()` under its own base path.
 */
import express from 'express';
import { createWebhookMiddleware, MemoryWebhookRegistry } from 'workflow-webhooks';
import { createExecutor, type Step } from './executor.js';
import { addEditorRoutes } from './editor.js';
import { addLongWork } from './long-work.js';

interface Order { id: number; item: string; status: string }

/** Builds the orders API with its webhooks; the workflows are activated before it serves. */
export async function createOrdersApp(options: { reportStepMs?: number } = {}): Promise<express.Express> {
  const orders: Order[] = [{ id: 1, item: 'Coffee beans', status: 'shipped' }];

  const app = express();
  app.use('/api/orders', express.json());
  app.get('/api/orders', (_req, res) => { res.json(orders); });

  const registry = new MemoryWebhookRegistry();
  const steps = new Map<string, Step[]>();

  // The spec's string-response recipe: Webhook (When Last Node Finishes, First Entry JSON, Property Name `data`)
  // → Edit Fields with Keep Only Set, setting `data` to a text.
  await registry.activate({
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
  });
  steps.set('greeting', [{ type: 'editFields', keepOnlySet: true, fields: { data: 'Hello {{query.name}}, this text came from the workflow.\n' } }]);

  // A workflow that feeds the host's own data: it answers at once and records the order in the background.
  await registry.activate({
    workflowId: 'order-intake',
    workflowName: 'Order intake',
    nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }],
  });
  steps.set('order-intake', [{
    type: 'code',
    run(items) {
      const body = items[0]?.json.body as { item?: unknown } | undefined;
      const order = { id: orders.length + 1, item: String(body?.item ?? 'unknown'), status: 'new' };
      orders.push(order);
      return [{ json: { ...order } }];
    },
  }]);

  // A dynamic path whose `:orderId` arrives in params; multi-method: GET reads (output 0), PUT updates (output 1).
  await registry.activate({
    workflowId: 'order-status',
    workflowName: 'Order status',
    nodes: [{ name: 'Webhook', parameters: { path: 'orders/:orderId', multipleMethods: true, httpMethod: ['GET', 'PUT'], responseMode: 'lastNode' } }],
  });
  steps.set('order-status', [{
    type: 'code',
    run(items) {
      const json = items[0]?.json as { params: { orderId: string }; body: { status?: unknown } };
      const order = orders.find((candidate) => String(candidate.id) === json.params.orderId);
      if (order === undefined) return [{ json: { error: `No order ${json.params.orderId}` } }];
      if (typeof json.body.status === 'string') order.status = json.body.status;
      return [{ json: { ...order } }];
    },
  }]);

  await addLongWork(registry, steps, { stepMs: options.reportStepMs ?? 1000 });

  // A draft the editor tests before anyone activates it: only its test address ever listens.
  const drafts = new Map([['signup', {
    workflowId: 'signup',
    workflowName: 'Signup (draft)',
    nodes: [{ name: 'Webhook', parameters: { path: 'signup', httpMethod: 'POST' as const, responseMode: 'lastNode' as const } }],
  }]]);
  steps.set('signup', [{ type: 'editFields', keepOnlySet: true, fields: { welcome: 'Welcome, {{body.name}}!' } }]);
  addEditorRoutes(app, registry, drafts);

  app.use('/api/automation', createWebhookMiddleware(registry, createExecutor(steps)));
  return app;
}
