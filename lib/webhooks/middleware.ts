/**
 * The middleware only wires the stages of the request path (DESIGN.md §1), each in its own folder:
 * request (target, limits, match) → guards → payload → run (dispatch, execute) → response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toWebhookError, WebhookError } from './errors.js';
import { callEvents, type CallEvents } from './events.js';
import { resolveOptions, type ResolvedOptions, type WebhookMiddlewareOptions } from './options.js';
import type { WebhookExecutor, WebhookMiddleware, WebhookRun } from './types.js';
import type { WebhookRegistry } from './registry/contract.js';
import { readRequestTarget, type RequestTarget } from './request/target.js';
import { checkRequestLimits } from './request/limits.js';
import { matchWebhook, notListening } from './request/match.js';
import { corsHeaders } from './guards/cors.js';
import { guardCall, type GuardSettings } from './guards/index.js';
import { answerOptions } from './guards/preflight.js';
import { parsePayload, type PayloadSettings } from './payload/index.js';
import { parseQuery } from './payload/query.js';
import { buildRun, requestBaseUrl } from './run/build-run.js';
import { startCall, writeSuccess, type Call } from './response/answer-call.js';
import { createResponder, NO_RESPONDER } from './response/workflow-responder.js';
import { sendError } from './response/error-answer.js';
import { writeResponse } from './response/write-plan.js';
import { addHeader } from './response/host-headers.js';

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
  const prefixes = { production: resolved.productionPrefix, test: resolved.testPrefix };
  const shared: SharedSettings = {
    guard: { proxyHops: resolved.proxyHops, credentials: resolved.credentials },
    payload: {
      limits: resolved.limits,
      tempDir: resolved.uploads.tempDir,
      memoryThreshold: resolved.uploads.memoryThreshold,
      bodyTimeoutMs: resolved.bodyTimeoutMs,
      logger: resolved.logger,
    },
  };

  return function webhookMiddleware(req, res, next) {
    const target = readRequestTarget(req, prefixes);
    if (target === undefined) {
      next();
      return;
    }
    const events = callEvents(resolved.onEvent);
    events.emit({ type: 'received', method: req.method ?? 'GET', path: target.rawPath });
    const state: CallState = { executing: false, controller: undefined, hungUp: false };
    // One listener per call: the responded event, and an abort for a workflow still waiting to answer.
    res.once('close', () => {
      events.emit({ type: 'responded', status: res.statusCode, completed: res.writableFinished });
      if (res.writableFinished) return;
      state.hungUp = true;
      state.controller?.abort(hangUp());
    });
    handleCall(req, res, target, { registry, executor, options: resolved, shared, events, state }).catch((thrown: unknown) => {
      const error = toWebhookError(thrown);
      if (!state.executing) events.emit({ type: 'rejected', code: error.code, status: error.status });
      sendError(res, next, error, resolved.errorHandling);
    });
  };
}

interface CallState {
  executing: boolean;
  /** Created on first use of run.signal, or by a deadline: most runs never look at it. */
  controller: AbortController | undefined;
  hungUp: boolean;
}

/** Settings of the stages, derived from the options once. */
interface SharedSettings {
  guard: GuardSettings;
  payload: PayloadSettings;
}

interface Wiring {
  registry: WebhookRegistry;
  executor: WebhookExecutor;
  options: ResolvedOptions;
  shared: SharedSettings;
  events: CallEvents;
  state: CallState;
}

const hangUp = (): WebhookError => new WebhookError('BODY_ABORTED', 'The caller closed the connection.');

/** The run's AbortController, made when first needed; already aborted if the caller has gone. */
function controllerOf(state: CallState): AbortController {
  if (state.controller === undefined) {
    state.controller = new AbortController();
    if (state.hungUp) state.controller.abort(hangUp());
  }
  return state.controller;
}

async function handleCall(req: IncomingMessage, res: ServerResponse, target: RequestTarget, wiring: Wiring): Promise<void> {
  const { options } = wiring;
  checkRequestLimits(req, options.limits);
  const method = (req.method ?? 'GET').toUpperCase();
  if (method === 'OPTIONS') {
    await writeResponse(res, await answerOptions(req, wiring.registry, target));
    return;
  }
  const { webhook, params } = await matchWebhook(wiring.registry, target, method);
  // CORS goes on the response first: every answer from here on, errors included, must be readable by the browser.
  const cors = corsHeaders(webhook.parameters.allowedOrigins, req.headers.origin);
  for (const name in cors) addHeader(res, name, cors[name] as string);
  const guarded = guardCall(req, webhook, wiring.shared.guard);
  const jwtPayload = guarded instanceof Promise ? await guarded : guarded;
  const payload = await parsePayload(req, wiring.shared.payload, webhook.parameters);
  let ended: Promise<void> = Promise.resolve();
  try {
    const report = (error: WebhookError): void => {
      options.onWorkflowError(error, { workflowId: webhook.workflowId, nodeName: webhook.nodeName, mode: target.kind, webhook });
    };
    const parameters = webhook.parameters;
    const responder = parameters.responseMode === 'responseNode'
      ? createResponder((plan) => { void writeSuccess({ res, parameters }, plan); }, report)
      : NO_RESPONDER;
    const { state } = wiring;
    const run = buildRun({
      req,
      target,
      match: { webhook, params },
      query: parseQuery(target.search),
      payload,
      baseUrl: options.publicUrl ?? requestBaseUrl(req, target.mountPath),
      prefix: target.kind === 'test' ? options.testPrefix : options.productionPrefix,
      signal: () => controllerOf(state).signal,
      respond: parameters.responseMode === 'responseNode' ? responder.respond : ignoreRespond(report),
      jwtPayload,
    });
    // A test listen is used up only by a call that reaches its workflow: after the guards and parsing, and with
    // nothing left between the claim and the run that could fail and leave the listen waiting.
    const claim = target.kind === 'test' ? await wiring.registry.claimTestCall(webhook) : undefined;
    if (target.kind === 'test' && claim === undefined) throw notListening(method, target.rawPath, 'received');
    claim?.arrived(run);
    const call: Call = {
      res, run, executor: wiring.executor, parameters, responder, abort: (reason) => controllerOf(state).abort(reason),
      deadline: options.deadline, events: wiring.events, report,
      onSettled: claim?.settled,
    };
    wiring.state.executing = true;
    const started = startCall(call);
    ended = started.ended;
    await started.answer;
  } finally {
    // Temp files live until the workflow no longer needs them, not merely until the answer is sent.
    void ended.then(() => payload.cleanup());
  }
}

function ignoreRespond(report: (error: WebhookError) => void): WebhookRun['respond'] {
  return () => {
    report(new WebhookError('WORKFLOW_INVALID_RESPONSE',
      'respond() was called, but the Webhook node\'s responseMode is not "responseNode"; the response was ignored.'));
  };
}
