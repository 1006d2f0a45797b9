/**
 * One call as the middleware serves it (its state, its request side until the connection is done, the middleware's
 * settings), and the one way a call is answered with an error: failCall. Kept beside middleware.ts, which wires the
 * stages.
 */
import type { IncomingMessage } from 'node:http';
import { toWebhookError, type WebhookError } from '../core/errors.js';
import { NO_EVENTS, type EventHub } from '../core/events.js';
import { errorFields } from '../core/logger.js';
import type { OpenRunWaits } from '../core/wait-hook.js';
import type { WebhookExecutor } from '../core/types.js';
import { shownPath, workflowOf } from './call-wiring.js';
import type { GuardSettings } from './guards/index.js';
import type { ResolvedOptions } from './options.js';
import type { PayloadSettings } from './payload/index.js';
import type { RateLimitSettings } from './rate-limit/index.js';
import type { WebhookRegistry } from './registry/contract.js';
import type { LookupNow } from './request/match.js';
import type { RequestTarget } from './request/target.js';
import { sendError } from './response/error-answer.js';
import { answered, CallState, endFiles, endRun } from './run/call-state.js';
import type { InFlight } from './run/in-flight.js';
import type { WaitingSettings } from './waiting/settings.js';
import type { HistoryRecorder } from './history/recorder.js';
import type { KeptCall } from './history/kept-call.js';

/** Everything a call needs that the factory made once. */
export interface Context {
  registry: WebhookRegistry;
  /** The registry's own look-up from memory, when it has one (the call then needs no promise to be matched). */
  lookupNow: LookupNow | undefined;
  executor: WebhookExecutor;
  options: ResolvedOptions;
  shared: SharedSettings;
  inFlight: InFlight<CallState>;
  /** The origin and mount path callers use, for `webhookUrl`; throws HOST_NOT_ALLOWED outside `allowedHosts`. */
  baseUrlOf: (req: IncomingMessage, mountPath: string) => string;
  /** Resume addresses: their secret, the registry's wait entries, this process's in-run waits. */
  waiting: WaitingSettings;
  /** Makes a run's waiting side (the waiting addresses' own), handed to the run stage. */
  openWaits: OpenRunWaits;
  /** Who hears the calls' events: the onEvent option and subscribers. */
  hub: EventHub;
  /** Keeps calls for finding and replaying them (option `history`); undefined: none kept. */
  history: HistoryRecorder | undefined;
}

/** Settings of the stages, derived from the options once. */
export interface SharedSettings {
  guard: GuardSettings;
  rateLimit: RateLimitSettings;
  payload: PayloadSettings;
}

/**
 * One call as the middleware serves it: its state, what it came with, and the middleware's own settings. A class,
 * not an object literal: V8 may allocate a literal's objects straight into the old generation once many of them
 * survive a young collection, and a dead one there keeps the request it points to alive through young collections.
 */
export class Served extends CallState {
  /** The request and the host's next(), until the connection is done (a run that goes on keeps neither). */
  req: IncomingMessage | undefined;
  next: ((err?: unknown) => void) | undefined;
  readonly method: string | undefined;
  /** The call as history keeps it, when it is kept. */
  declare kept: KeptCall | undefined;

  constructor(req: IncomingMessage, readonly target: RequestTarget, next: (err?: unknown) => void, readonly context: Context, givenId: string | undefined) {
    super(givenId, NO_EVENTS, context.inFlight);
    this.req = req;
    this.next = next;
    this.method = req.method;
  }

  override connectionDone(): void {
    this.req = undefined;
    this.next = undefined;
  }

  /** Stopped before its run answers (a body still arriving, guards, parsing): the caller is answered now. */
  override answerStop(reason: WebhookError): void {
    if (!answered(this)) failCall(this, reason);
  }
}

/** Answers the call with an error, once: a later error (the pipeline's own, after a stop answered it) is dropped. */
export function failCall(state: Served, thrown: unknown): void {
  const { res, next, target, method, context: { options } } = state;
  if (state.failed) return;
  state.failed = true;
  state.onStop = undefined;
  state.answersStops = false;
  const error = toWebhookError(thrown);
  state.kept?.failed(error);
  const { events } = state;
  if (!state.executing) {
    endRun(state);
    if (state.release === undefined) endFiles(state);
    if (state.webhook === undefined) events.emit({ type: 'received', method: method ?? 'GET', path: target.rawPath, kind: target.kind });
    events.emit({ type: 'rejected', code: error.code, status: error.status, error, ...workflowOf(state.webhook) });
  }
  // A call stopped by close() is an expected part of shutting down; close() logs how many there were.
  if (error.status >= 500 && !state.reported && !(error === state.stopReason && error.code === 'SHUTTING_DOWN')) {
    options.logger.error({ callId: state.callId, err: errorFields(error), method, path: shownPath(target, state.webhook), ...workflowOf(state.webhook) },
      `webhook call answered ${error.status} ${error.code}`);
  }
  // A caller who hung up has nobody left to answer.
  if (res !== undefined && next !== undefined) sendError(res, next, error, options.errorHandling);
}
