/**
 * The middleware only wires the stages of the request path (DESIGN.md §1):
 * target → match → parse → dispatch → execute → respond. Each stage lives in its own file.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildRun, requestBaseUrl } from './dispatch.js';
import { toWebhookError, WebhookError } from './errors.js';
import { executeWorkflow } from './execute.js';
import { matchWebhook } from './match.js';
import { resolveOptions, type ResolvedOptions, type WebhookMiddlewareOptions } from './options.js';
import { parsePayload } from './payload/index.js';
import { parseQuery } from './payload/query.js';
import { readRequestTarget, type RequestTarget } from './request-target.js';
import { buildReceivedResponse, buildResultResponse } from './respond.js';
import { createResponder, type Responder } from './responder.js';
import { sendError } from './send-error.js';
import { writeResponse } from './send-response.js';
import type {
  ExecutionResult,
  ResolvedWebhookParameters,
  WebhookExecutor,
  WebhookMiddleware,
  WebhookRegistry,
  WebhookRun,
} from './types.js';

/**
 * Creates the webhook middleware. Mount it anywhere: `app.use('/api/automation', middleware)` serves
 * `/api/automation/webhook/<path>`. Requests outside the webhook prefix fall through to `next()`.
 *
 * @example
 * const registry = new MemoryWebhookRegistry();
 * await registry.activate({ workflowId: 'wf1', nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }] });
 * app.use('/api/automation', createWebhookMiddleware(registry, async (run) => ({ items: run.items })));
 */
export function createWebhookMiddleware(
  registry: WebhookRegistry,
  executor: WebhookExecutor,
  options?: WebhookMiddlewareOptions,
): WebhookMiddleware {
  if (typeof registry?.lookup !== 'function') {
    throw new TypeError('workflow-webhooks: the first argument must be a WebhookRegistry (e.g. new MemoryWebhookRegistry()).');
  }
  if (typeof executor !== 'function') {
    throw new TypeError('workflow-webhooks: the second argument must be the workflow executor function.');
  }
  const resolved = resolveOptions(options);
  const prefixes = { production: resolved.productionPrefix };

  return function webhookMiddleware(req, res, next) {
    const target = readRequestTarget(req, prefixes);
    if (target === undefined) {
      next();
      return;
    }
    handleCall(req, res, target, registry, executor, resolved).catch((error: unknown) => {
      sendError(res, next, error, resolved.errorHandling);
    });
  };
}

async function handleCall(
  req: IncomingMessage,
  res: ServerResponse,
  target: RequestTarget,
  registry: WebhookRegistry,
  executor: WebhookExecutor,
  options: ResolvedOptions,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const match = await matchWebhook(registry, target, method);
  const payload = await parsePayload(req, {
    limits: options.limits,
    tempDir: options.uploads.tempDir,
    memoryThreshold: options.uploads.memoryThreshold,
    rawBody: match.webhook.parameters.rawBody,
    binaryPropertyName: match.webhook.parameters.binaryPropertyName,
  });
  try {
    const { webhook } = match;
    const report = (error: WebhookError): void => {
      options.onWorkflowError(error, { workflowId: webhook.workflowId, nodeName: webhook.nodeName, mode: target.kind, webhook });
    };
    const responder = createResponder(res, report);
    const run = buildRun({
      req,
      target,
      match,
      query: parseQuery(target.search),
      payload,
      baseUrl: options.publicUrl ?? requestBaseUrl(req, target.mountPath),
      prefix: options.productionPrefix,
      signal: abortOnHangUp(res),
      respond: webhook.parameters.responseMode === 'responseNode' ? responder.respond : ignoreRespond(report),
    });
    await executeAndRespond(res, executor, run, webhook.parameters, responder, report);
  } finally {
    await payload.cleanup();
  }
}

/** A caller who hangs up before the answer cannot get it: tell the workflow so it can stop. */
function abortOnHangUp(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new WebhookError('BODY_ABORTED', 'The caller closed the connection.'));
  });
  return controller.signal;
}

function ignoreRespond(report: (error: WebhookError) => void): WebhookRun['respond'] {
  return () => {
    report(new WebhookError('WORKFLOW_INVALID_RESPONSE',
      'respond() was called, but the Webhook node\'s responseMode is not "responseNode"; the response was ignored.'));
  };
}

async function executeAndRespond(
  res: ServerResponse,
  executor: WebhookExecutor,
  run: WebhookRun,
  parameters: ResolvedWebhookParameters,
  responder: Responder,
  report: (error: WebhookError) => void,
): Promise<void> {
  if (parameters.responseMode === 'onReceived') {
    writeResponse(res, buildReceivedResponse(parameters));
    await executeWorkflow(executor, run).catch((error: unknown) => { report(toWebhookError(error)); });
    return;
  }
  let result: ExecutionResult;
  try {
    result = await executeWorkflow(executor, run);
  } catch (error) {
    report(toWebhookError(error));
    // Under responseNode the caller may have its answer already; the failure is then only reported.
    if (responder.responded) return;
    throw error;
  }
  if (parameters.responseMode === 'lastNode') {
    writeResponse(res, buildResultResponse(parameters, result));
  } else if (!responder.responded) {
    // Never the empty 200 users of the known platform complain about: no response is a failure.
    const error = new WebhookError('WORKFLOW_NO_RESPONSE', 'The workflow finished without responding to the webhook call.', {
      hint: 'With responseMode "responseNode" the workflow must call run.respond() (a Respond to Webhook node).',
    });
    report(error);
    throw error;
  }
}
