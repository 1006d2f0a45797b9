/**
 * Entry point `workflow-webhooks/console`: a page for the people who run the webhooks, mounted like any router.
 * It lists every active address (production, test, waiting) with how it is guarded, listens for test events and
 * shows what arrived, keeps the last calls live, retries queue mode's failed runs, finds and replays the calls the
 * middleware's history keeps, and previews node parameters.
 *
 * @module workflow-webhooks/console
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorFields } from '../core/logger.js';
import { CallRecorder } from './calls/recorder.js';
import { ConsoleListens } from './listen/listens.js';
import { resolveConsoleOptions, type WebhookConsoleOptions } from './options.js';
import { apiRoutes } from './server/api-routes.js';
import { EventStreams } from './server/event-stream.js';
import { historyRoutes } from './server/history-routes.js';
import { jobRoutes } from './server/job-routes.js';
import { pageRoutes } from './server/page-routes.js';
import { consoleRouter } from './server/router.js';

export type { ConsoleAuthorize, ConsoleQueue, WebhookConsoleOptions } from './options.js';
export type { CallLog, CallRecordListener } from './calls/contract.js';
export { MemoryCallLog } from './calls/memory-log.js';
export type * from './protocol.js';

export interface WebhookConsole {
  (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void;
  /**
   * Stops hearing the middleware (its calls, its bulk replays' progress), ends the pages' event streams, stops the
   * console's listens, closes its own call log.
   */
  close(): Promise<void>;
}

/**
 * Creates the console. Mount it on a path of its own, behind your sign-in:
 *
 * @example
 * const middleware = createWebhookMiddleware(registry, executor);
 * app.use('/api/automation', middleware);
 * app.use('/admin/webhooks', createWebhookConsole({
 *   registry, middleware, webhookUrl: '/api/automation',
 *   authorize: (req) => isAdmin(req),
 * }));
 */
export function createWebhookConsole(options: WebhookConsoleOptions): WebhookConsole {
  const resolved = resolveConsoleOptions(options);
  const { logger, callLog } = resolved;
  const streams = new EventStreams();
  const listens = new ConsoleListens(
    { registry: resolved.registry, settings: resolved.middleware.settings, maxFileBytes: resolved.maxCapturedFileBytes },
    (event) => streams.broadcast(event),
  );
  const recorder = new CallRecorder({
    settings: resolved.middleware.settings,
    instance: resolved.instance,
    finished: (call) => {
      callLog.append(call).catch((error: unknown) => {
        logger.warn({ ...errorFields(error), callId: call.callId }, 'workflow-webhooks/console: a call could not be added to the recent calls');
      });
    },
  });
  // Every instance's calls reach every page through the log (one process's own, or Redis's for a shared log).
  const stopHearingLog = callLog.subscribe((call) => streams.broadcast({ type: 'call', call }));
  const stopHearingCalls = resolved.middleware.subscribe((event) => {
    recorder.onEvent(event);
    listens.webhookEvent(event);
  });
  const stopHearingReplays = resolved.history?.onProgress((progress) => streams.broadcast({ type: 'replay', progress }));
  const handler = consoleRouter([
    ...pageRoutes(resolved, listens, streams),
    ...apiRoutes({ options: resolved, listens }),
    ...jobRoutes(resolved.queue, (event) => streams.broadcast(event)),
    ...historyRoutes(resolved),
  ], resolved);

  let closing: Promise<void> | undefined;
  return Object.assign(handler, {
    close(): Promise<void> {
      closing ??= (async () => {
        stopHearingCalls();
        stopHearingLog();
        stopHearingReplays?.();
        streams.close();
        await listens.close();
        if (resolved.ownsCallLog) await callLog.close?.();
      })();
      return closing;
    },
  });
}
