/**
 * Small parts of the middleware's wiring, kept out of middleware.ts so that it reads as the request path: the caller's
 * request id, which memory refuses replayed message ids, the shutdown refusal, warnings told once, the responseNode writer,
 * what the `received` event says of a matched call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebhookError } from '../core/errors.js';
import type { ResolvedOptions } from './options.js';
import type { WebhookExecutor } from '../core/types.js';
import type { RegisteredWebhook, WebhookRegistry } from './registry/contract.js';
import { InProcessReplayMemory, type ReplayMemory } from './registry/message-ids.js';
import { isHandOff } from './run/hand-off.js';
import { writeSuccess } from './response/answer-call.js';
import type { ResponsePlan } from './response/build-plan.js';
import type { HeaderPolicy } from './response/finalize.js';
import type { RequestTarget } from './request/target.js';
import { redactPath } from './guards/secrets.js';

/**
 * Signed message ids go where the registry keeps shared state (Redis: every instance sees them), else in process. An
 * executor that deduplicates (queue mode) answers a repeated id as the first call instead, so none is refused here.
 */
export function replayMemoryOf(registry: WebhookRegistry, executor: WebhookExecutor): ReplayMemory {
  if (isHandOff(executor) && executor.deduplicates) return EVERY_ID_NEW;
  const shared = registry.rememberMessageId?.bind(registry);
  return shared === undefined ? new InProcessReplayMemory() : { remember: shared };
}

const EVERY_ID_NEW: ReplayMemory = { remember: () => true };

const REQUEST_ID = /^[\w.:@/+=-]{1,200}$/;

/** The caller's request id when it is a sane token, else undefined (the call then gets a UUID when one is asked for). */
export function requestIdOf(req: IncomingMessage, header: string): string | undefined {
  const given = req.headers[header];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : undefined;
}

/** The matched call as the `received` event tells it: workflow, node, the address's template, answer mode, body size. */
export function matchedFields(req: IncomingMessage, target: RequestTarget, webhook: RegisteredWebhook, options: ResolvedOptions, suffix: string | undefined) {
  const route = routeOf(target, webhook, options, suffix);
  const length = Number(req.headers['content-length']);
  return {
    workflowId: webhook.workflowId, nodeName: webhook.nodeName, mode: webhook.kind, route, responseMode: webhook.parameters.responseMode,
    ...(webhook.workflowName === undefined ? {} : { workflowName: webhook.workflowName }),
    ...(Number.isSafeInteger(length) && length >= 0 ? { bodyBytes: length } : {}),
  };
}

/** The address as registered: `/webhook/orders/:orderId`, or a resume address's `/webhook-waiting/:waitId/<suffix>`. */
export function routeOf(target: RequestTarget, webhook: RegisteredWebhook, options: ResolvedOptions, suffix: string | undefined): string {
  return target.kind === 'waiting'
    ? `/${options.waiting.prefix}/:waitId${suffix === undefined || suffix === '' ? '' : `/${suffix}`}`
    : `/${target.kind === 'test' ? options.testPrefix : options.productionPrefix}/${webhook.path}`;
}

/**
 * The call's path as events and log lines tell it: a path parameter named like a credential (`reset/:token`) is
 * `[redacted]`. A resume address's path is its wait's, not its node's, and an unmatched one has no template.
 */
export function shownPath(target: RequestTarget, webhook: RegisteredWebhook | undefined): string {
  return webhook === undefined || target.kind === 'waiting' ? target.rawPath : redactPath(target.rawPath, webhook.path);
}

export function workflowOf(webhook: RegisteredWebhook | undefined): { workflowId?: string; nodeName?: string } {
  return webhook === undefined ? {} : { workflowId: webhook.workflowId, nodeName: webhook.nodeName };
}

/** Activation warnings (unknown node options), logged the first time a webhook with them is served. */
const warned = new WeakSet<object>();

export function warnOnce(warnings: RegisteredWebhook['warnings'] & object, logger: ResolvedOptions['logger']): void {
  if (warned.has(warnings)) return;
  warned.add(warnings);
  for (const warning of warnings) logger.warn({ ...warning }, warning.message);
}

export function shuttingDown(): WebhookError {
  return new WebhookError('SHUTTING_DOWN', 'The server is shutting down and takes no new webhook calls.', {
    hint: 'Try again in a moment; another instance may take the call.',
    headers: { 'retry-after': '5', connection: 'close' },
  });
}

/** How a responseNode answer is written; the responder drops it once the call is answered. */
export function writerOf(res: ServerResponse, parameters: RegisteredWebhook['parameters'], headerPolicy: HeaderPolicy): (plan: ResponsePlan) => void {
  return (plan) => { void writeSuccess({ res, parameters, headerPolicy }, plan); };
}
