/**
 * The middleware only wires the stages of the request path, each in its own folder:
 * request (target, limits, match) → guards → rate limit → payload (reading through body/ and uploads/) → run
 * (dispatch, execute) → response; and composes the addresses it serves: production and test, and waiting/'s.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toWebhookError } from '../core/errors.js';
import { callEvents, EventHub, type WebhookEventListener } from '../core/events.js';
import { resolveOptions, type WebhookMiddlewareOptions } from './options.js';
import type { WebhookExecutor, WebhookMiddleware, WebhookMiddlewareSettings, WebhookShutdownResult } from '../core/types.js';
import type { WebhookRegistry } from './registry/contract.js';
import { readRequestTarget, requestMountPath, type RequestTarget } from './request/target.js';
import { checkRequestLimits } from './request/limits.js';
import { immediateLookup, matchWebhook, notListening } from './request/match.js';
import { corsHeaders } from './guards/cors.js';
import { guardCall } from './guards/index.js';
import { limitCall, rateLimitSettings } from './rate-limit/index.js';
import { answerOptions } from './guards/preflight.js';
import { bodyPace, parsePayload, type Payload } from './payload/index.js';
import { parseQuery } from './payload/query.js';
import { checkPayload } from './validate/index.js';
import { buildRun, runStarted } from './run/build-run.js';
import { isHandOff, keyringOf } from './run/hand-off.js';
import { baseUrlResolver } from './request/host.js';
import { documentRoute } from './describe/serve.js';
import { InFlight } from './run/in-flight.js';
import {
  afterRun, endFiles, endRun, releaseFiles, runTooLong, stopRun, watchClose, type CallState,
} from './run/call-state.js';
import { answerFrom, startCall, type Call, type StartedCall } from './response/answer-call.js';
import { reporter } from './run/report.js';
import { createResponder, NO_RESPONDER } from './response/workflow-responder.js';
import { matchedFields, requestIdOf, routeOf, shownPath, replayMemoryOf, shuttingDown, warnOnce, workflowOf, writerOf } from './call-wiring.js';
import { HistoryRecorder } from './history/recorder.js';
import { createHistoryApi } from './history/api.js';
import { runWaitsOpener } from './waiting/run-waits.js';
import { waitingSettings } from './waiting/settings.js';
import { claimWaitCall, giveBackWait, matchWait, resumeInRun, waitingOptions, watchExpiries, type WaitMatch } from './waiting/serve.js';
import { sendError } from './response/error-answer.js';
import { writeResponse } from './response/write-plan.js';
import { addHeader } from './response/host-headers.js';
import { failCall, Served, type Context, type SharedSettings } from './served-call.js';

/**
 * Creates the webhook middleware. Mount it anywhere: `app.use('/api/automation', middleware)` serves
 * `/api/automation/webhook/<path>`. Requests outside the webhook prefix fall through to `next()`.
 * `await middleware.close({ timeoutMs })` shuts it down gracefully.
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
  const resolved = resolveOptions(options, keyringOf(executor));
  const prefixes = { production: resolved.productionPrefix, test: resolved.testPrefix, waiting: resolved.waiting.prefix };
  const shared: SharedSettings = {
    guard: { proxyHops: resolved.proxyHops, credentials: resolved.credentials, replay: replayMemoryOf(registry, executor) },
    rateLimit: rateLimitSettings(resolved.rateLimit, resolved.proxyHops, registry, resolved.logger),
    payload: {
      limits: resolved.limits,
      tempDir: resolved.uploads.tempDir,
      memoryThreshold: resolved.uploads.memoryThreshold,
      pace: bodyPace(resolved.bodyTimeoutMs, resolved.minBodyRate),
      logger: resolved.logger,
    },
  };
  const inFlight = new InFlight<CallState>(resolved.maxRunMs, {
    stop: stopRun,
    release: releaseFiles,
    overran: (state) => {
      const error = runTooLong(resolved.maxRunMs);
      stopRun(state, error);
      void releaseFiles(state);
      resolved.logger.warn({ callId: state.callId, ...workflowOf(state.webhook), maxRunMs: resolved.maxRunMs }, error.message);
    },
  });

  const baseUrlOf = baseUrlResolver(resolved);
  const hub = new EventHub(resolved.onEvent);
  const waiting = waitingSettings(resolved.waiting, registry, {
    limits: resolved.limits, maxRunMs: resolved.maxRunMs, logger: resolved.logger, onEvent: hub.relay,
  });
  // Expired suspended waits are swept for listeners only (in Redis the sweep is a round trip a second).
  let stopWatching = (): void => undefined;
  const watch = (): void => {
    stopWatching();
    stopWatching = hub.current === undefined ? () => undefined : watchExpiries(registry, hub.relay);
  };
  watch();
  hub.onChange(watch);
  const openWaits = runWaitsOpener(waiting);
  const recorder = resolved.history === undefined ? undefined : new HistoryRecorder(resolved.history, resolved.logger);
  const context: Context = {
    registry, lookupNow: immediateLookup(registry), executor, options: resolved, shared, inFlight, baseUrlOf, waiting, openWaits, hub, history: recorder,
  };
  const history = recorder === undefined ? undefined : createHistoryApi({
    recorder, registry, executor, openWaits, schemas: resolved.schemas, schemaWork: resolved.limits.schemaWork, maxRunMs: resolved.maxRunMs,
    baseUrl: resolved.publicUrl, productionPrefix: resolved.productionPrefix, logger: resolved.logger, onWorkflowError: resolved.onWorkflowError,
    closing: () => (inFlight.closing ? shuttingDown() : undefined),
  });
  const openApi = resolved.openApi && documentRoute(registry, resolved.openApi, {
    productionPrefix: resolved.productionPrefix, timeoutStatus: resolved.deadline.status, credentials: resolved.credentials, rateLimit: resolved.rateLimit.default,
    validators: resolved.schemas,
    waitingPrefix: resolved.waiting.secret === undefined ? undefined : resolved.waiting.prefix,
    baseUrlOf: (req) => baseUrlOf(req, requestMountPath(req)),
  });

  const middleware = function webhookMiddleware(req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void {
    const target = readRequestTarget(req, prefixes);
    if (target === undefined) {
      if (openApi?.owns(req) === true) openApi.serve(req, res).catch((error: unknown) => { sendError(res, next, toWebhookError(error), resolved.errorHandling); });
      else next();
      return;
    }
    serveCall(req, res, next, target, context);
  };
  const settings: WebhookMiddlewareSettings = Object.freeze({
    productionPrefix: resolved.productionPrefix,
    testPrefix: resolved.testPrefix,
    waitingPrefix: resolved.waiting.prefix,
    waiting: resolved.waiting.secret !== undefined,
    publicUrl: resolved.publicUrl,
    errorHandling: resolved.errorHandling,
    openApiPath: resolved.openApi?.path,
    responseTimeoutMs: resolved.deadline.ms,
    rateLimit: resolved.rateLimit.default,
    credentials: resolved.credentials,
    logger: resolved.logger,
  });
  return Object.assign(middleware, {
    settings,
    subscribe: (listener: WebhookEventListener) => hub.subscribe(listener),
    history,
    close: async (closeOptions: { timeoutMs?: number } = {}): Promise<WebhookShutdownResult> => {
      const timeoutMs = closeOptions.timeoutMs ?? 10_000;
      stopWatching();
      stopWatching = () => undefined;
      // Bulk replays start no more replays; those under way end as any run does.
      for (const progress of history?.bulkReplays() ?? []) history?.bulkReplay(progress.id)?.stop();
      const result = await inFlight.drain(timeoutMs);
      // The calls and replays just ended are kept too: one last batch, within the same bound.
      await recorder?.replaysEnded(timeoutMs);
      await recorder?.writer.close(timeoutMs);
      if (result.aborted > 0) {
        resolved.logger.warn({ ...result, timeoutMs },
          `close(): ${result.aborted} call(s) still under way after ${timeoutMs} ms were told to stop; callers still waiting were answered 503 SHUTTING_DOWN`);
      }
      return result;
    },
  });
}

function serveCall(req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void, target: RequestTarget, context: Context): void {
  const { options } = context;
  const call = new Served(req, target, next, context, requestIdOf(req, options.requestIdHeader));
  // Events are built only for a call somebody hears; only then is its id needed now.
  if (context.hub.current !== undefined || options.telemetry !== undefined) call.events = callEvents(context.hub.current, call.callId, options.telemetry);
  watchClose(res, call);
  void handleCall(call);
}

/** The request path of one call; whatever it throws becomes the call's error answer (failCall). */
async function handleCall(call: Served): Promise<void> {
  const { target, context } = call;
  const req = call.req as IncomingMessage;
  const res = call.res as ServerResponse;
  const { options } = context;
  const { events } = call;
  let payload: Payload | undefined;
  let ended: Promise<unknown> | undefined;
  let settled = false;
  try {
    if (context.inFlight.closing) throw shuttingDown();
    checkRequestLimits(req, options.limits);
    const baseUrl = context.baseUrlOf(req, target.mountPath);
    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'OPTIONS') {
      events.emit({ type: 'received', method, path: target.rawPath, kind: target.kind });
      endRun(call);
      endFiles(call);
      await writeResponse(res, await (target.kind === 'waiting' ? waitingOptions(context.waiting, target, req) : answerOptions(req, context.registry, target)));
      return;
    }
    // A resume address is found through its wait; every other address through the registry's routes (at once where
    // the registry keeps them in memory).
    const waitMatch = target.kind === 'waiting' ? await matchWait(context.waiting, target, method) : undefined;
    const matched = waitMatch ?? matchWebhook(context.registry, target, method, context.lookupNow);
    const { webhook, params } = matched instanceof Promise ? await matched : matched;
    call.webhook = webhook;
    if (webhook.warnings !== undefined) warnOnce(webhook.warnings, options.logger);
    if (events.active) events.emit({ type: 'received', method, path: shownPath(target, webhook), kind: target.kind, ...matchedFields(req, target, webhook, options, waitMatch?.wait.suffix) });
    // CORS goes on the response first: every answer from here on, errors included, must be readable by the browser.
    const cors = corsHeaders(webhook.parameters.allowedOrigins, req.headers.origin);
    for (const name in cors) addHeader(res, name, cors[name] as string);
    const guarded = guardCall(req, webhook, context.shared.guard);
    const auth = guarded instanceof Promise ? await guarded : guarded;
    const limited = limitCall(req, res, target.kind, webhook, context.shared.rateLimit, auth);
    if (limited !== undefined) await limited;
    // Kept from here: a call that passed its guards and limits (a refused one could not be replayed without them).
    if (context.history !== undefined) {
      call.kept = context.history.open(webhook, { kind: target.kind, method, rawPath: target.rawPath, route: routeOf(target, webhook, options, waitMatch?.wait.suffix) });
      call.kept?.arrived(req.headers, waitMatch === undefined ? target.search : waitMatch.search, auth?.checkedHeader);
    }
    const payloadSettings = waitMatch === undefined ? context.shared.payload : { ...context.shared.payload, limits: waitMatch.wait.limits };
    payload = await parsePayload(req, payloadSettings, webhook.parameters, auth !== undefined && 'signature' in auth ? auth.signature : undefined);
    call.release = payload.cleanup;
    let query = parseQuery(waitMatch === undefined ? target.search : waitMatch.search);
    if (webhook.schemas !== undefined) {
      // Before the run, its test listen, its wait or its job: a call that does not match uses none of them up.
      const parts = { body: payload.body, query, headers: req.headers, bodyKind: payload.kind };
      const checked = checkPayload(webhook, webhook.schemas, parts, options.schemas, payloadSettings.limits.schemaWork);
      if (checked !== undefined) await checked;
      payload.body = parts.body;
      query = parts.query;
    }
    const report = reporter(options, call, webhook, webhook.kind);
    const parameters = webhook.parameters;
    const responder = parameters.responseMode === 'responseNode'
      ? createResponder(writerOf(res, parameters, options.headerPolicy), report)
      : NO_RESPONDER;
    const run = buildRun({
      req,
      target,
      match: { webhook, params },
      query,
      payload,
      baseUrl,
      prefix: target.kind === 'waiting' ? options.waiting.prefix : target.kind === 'test' ? options.testPrefix : options.productionPrefix,
      respond: parameters.responseMode === 'responseNode' ? responder.respond : undefined,
      report,
      jwtPayload: auth !== undefined && 'jwtPayload' in auth ? auth.jwtPayload : undefined,
      call,
      events,
      openWaits: context.openWaits,
    });
    call.kept?.request(run, auth?.checkedHeader, payload.kind);
    // close() stopped the call while its body was read: it was answered 503, and no run starts after shutdown.
    if (call.stopReason !== undefined) throw call.stopReason;
    // A test listen is used up only by a call that reaches its workflow: after the guards and parsing, and with
    // nothing left between the claim and the run that could fail and leave the listen waiting.
    const claim = target.kind === 'test' ? await context.registry.claimTestCall(webhook) : undefined;
    if (target.kind === 'test' && claim === undefined) throw notListening(method, target.rawPath, 'received');
    claim?.arrived(run);
    const resumed = waitMatch === undefined ? undefined : await claimWaitCall(context.waiting, waitMatch);
    if (resumed !== undefined) {
      if (resumed.form === 'suspended') run.resume = { waitId: resumed.waitId, state: resumed.state, startedAt: resumed.startedAt, resumedAt: resumed.resumedAt ?? Date.now() };
      if (events.active) events.emit({ type: 'resumed', waitId: resumed.waitId, form: resumed.form ?? 'suspended', workflowId: webhook.workflowId, nodeName: webhook.nodeName, mode: webhook.kind });
    }
    // Resuming a run that waits here hands it the item now; nothing can fail between the claim and the hand-over.
    const resumedRun = resumed?.form === 'inRun' ? resumeInRun(context.waiting, waitMatch as WaitMatch, run, responder) : undefined;
    const answering: Call = {
      res, run, executor: context.executor, parameters, headerPolicy: options.headerPolicy, responder,
      deadline: options.deadline, stops: call, events, report,
      onSettled: claim?.settled ?? call.kept?.settled, onAccepted: call.kept?.accepted, settings: webhook.settings, checkedHeader: auth?.checkedHeader, caller: auth?.caller,
      onRefused: resumed === undefined ? undefined : () => { giveBackWait(context.waiting, waitMatch as WaitMatch); },
    };
    call.executing = true;
    call.runStartedAt = Date.now();
    const started: StartedCall = resumedRun === undefined ? startCall(answering) : answerFrom(answering, resumedRun);
    // A run handed off (queue mode) runs on a worker, whose own run keeps its resume address.
    if (resumedRun === undefined && !isHandOff(context.executor)) runStarted(run, started.ended);
    ended = started.ended;
    settled = started.settled;
    if (started.answer !== undefined) await started.answer;
  } catch (error) {
    failCall(call, error);
  } finally {
    // The run's end (or, for a call refused before it, now) lets the call finish: its files go, then its state.
    if (payload !== undefined) afterRun(ended, call, payload, settled);
  }
}
