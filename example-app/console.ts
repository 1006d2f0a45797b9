/**
 * The webhook console of this backend, at /admin/webhooks: its addresses, Listen for test event, the recent calls,
 * queue mode's failed runs, and the node parameter preview. The example has no users, so it lets in callers on this
 * machine only; a real backend's `authorize` checks its own session instead (an admin role, say).
 */
import type express from 'express';
import type { WebhookMiddleware, WebhookRegistry, WorkflowWebhooks } from 'workflow-webhooks';
import { createWebhookConsole, type CallLog, type ConsoleQueue, type WebhookConsole } from 'workflow-webhooks/console';

export const CONSOLE_PATH = '/admin/webhooks';

export interface ExampleConsoleOptions {
  /** Queue mode: the queue whose failed runs the console shows and retries. */
  queue?: ConsoleQueue;
  /** Several instances: the recent calls of every instance (a RedisCallLog). Default: this process's. */
  callLog?: CallLog;
  /** Recorded with each call, to tell instances apart. */
  instance?: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export function addConsole(
  app: express.Express,
  parts: { registry: WebhookRegistry; middleware: WebhookMiddleware; workflows: () => WorkflowWebhooks[] },
  options: ExampleConsoleOptions = {},
): WebhookConsole {
  const console = createWebhookConsole({
    registry: parts.registry,
    middleware: parts.middleware,
    webhookUrl: '/api/automation',
    title: 'Orders API · webhooks',
    authorize: (req) => LOOPBACK.has(req.socket.remoteAddress ?? ''),
    workflows: parts.workflows,
    ...options,
  });
  app.use(CONSOLE_PATH, console);
  return console;
}
