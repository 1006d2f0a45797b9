/**
 * One call's state from its arrival to its last event: the run's signal (made when first needed), stopping the run
 * (hang-up, deadline, maxRunMs, shutdown), releasing its temp files, and the `responded` event that closes the
 * call. Plain flags rather than a promise per step: this runs for every call. The closures that outlive the answer
 * are made here, apart from the scopes that hold `req` and `res`, so that a run that goes on keeps neither alive.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import type { CallEvents } from '../../core/events.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import type { InFlight, TrackedCall } from './in-flight.js';
import { noCleanup } from '../payload/index.js';

/** Hears a call's end: its connection done and its run over (what was sent is known then). */
export interface CallEndListener {
  ended(state: CallState): void;
}

/**
 * A class, not an object literal: V8 may decide to allocate the objects of a literal that often survives straight
 * into the old generation, where a dead one keeps what it points to alive through young-generation collections.
 */
export class CallState implements TrackedCall {
  /** The caller's request id when it gave a sane one; else a UUID is made when first asked for (most calls never are). */
  #callId: string | undefined;
  events: CallEvents;
  inFlight: InFlight<CallState>;
  inFlightSlot = -1;
  executing = false;
  /** The failure was reported to onWorkflowError or the logger already. */
  reported = false;
  /** Created on first use of run.signal, or by a deadline: most runs never look at it. */
  controller: AbortController | undefined = undefined;
  hungUp = false;
  webhook: RegisteredWebhook | undefined = undefined;
  /** The response, until its connection is done; then only what was sent is kept. */
  res: ServerResponse | undefined = undefined;
  status: number | undefined = undefined;
  completed = false;
  /** Removes the call's temp files now; set once the payload is parsed. */
  release: (() => Promise<void>) | undefined = undefined;
  closed = false;
  /** The run settled, was told to stop, or never started. */
  runOver = false;
  /** The call's temp files are gone (or it had none). */
  filesGone = false;
  responded = false;
  /** The call was answered with an error: a later error (the pipeline's own, after a stop answered it) is dropped. */
  failed = false;
  runStartedAt = 0;
  /** Why the middleware told the run to stop (hang-up, deadline, maxRunMs, shutdown); the first reason stays. */
  stopReason: WebhookError | undefined = undefined;
  /**
   * Who answers the caller when the middleware stops the call while a run's answer is awaited (the deadline's
   * wait); cleared once that wait is over, or the connection is done.
   */
  onStop: ((reason: WebhookError) => void) | undefined = undefined;
  /**
   * Whether a stop with no such wait is answered by `answerStop()` (the middleware's error answer): until the call
   * is answered with an error, or its connection is done. A method and a flag, not a closure per call: V8 can let a
   * closure kept on the state pin each call's objects through young collections (measured, bench/README.md).
   */
  answersStops = true;
  /** Hears the call's end, once (history keeps the call then); set only for a call that is kept. */
  kept: CallEndListener | undefined = undefined;

  /** `givenId`: the caller's request id, already checked to be a sane token; undefined for a new UUID. */
  constructor(givenId: string | undefined, events: CallEvents, inFlight: InFlight<CallState>) {
    this.#callId = givenId;
    this.events = events;
    this.inFlight = inFlight;
    inFlight.add(this);
  }

  /** Correlates the call's events, logs and run (`run.callId`). */
  get callId(): string {
    return this.#callId ??= randomUUID();
  }

  /** The run's signal: made on first use (most runs never look at it), already aborted if the caller has gone. */
  get signal(): AbortSignal {
    return controllerOf(this).signal;
  }

  /** Tells the run to stop (see stopRun). */
  stop(reason: WebhookError): void {
    stopRun(this, reason);
  }

  /** Answers the caller of a call stopped while no run's answer is awaited; the middleware's calls write an error. */
  answerStop(_reason: WebhookError): void {}

  /** The connection is done: the middleware's calls let go of their request side, which a run going on must not keep. */
  connectionDone(): void {}
}

/**
 * Learns what was really sent when the connection is done, and stops a run whose caller hung up. After it, the
 * state no longer holds the response.
 */
export function watchClose(res: ServerResponse, state: CallState): void {
  state.res = res;
  // `on`, not `once`: a response closes once, and once's wrapper costs every call.
  res.on('close', () => {
    state.res = undefined;
    state.onStop = undefined;
    state.answersStops = false;
    state.connectionDone();
    state.closed = true;
    state.status = res.headersSent ? res.statusCode : undefined;
    state.completed = res.writableFinished;
    if (!res.writableFinished) {
      state.hungUp = true;
      if (state.executing) stopRun(state, hangUp());
    }
    progress(state);
  });
}

/** Whether the caller had an answer: from the response while it is open, else from what was recorded. */
export function answered(state: CallState): boolean {
  return state.res?.headersSent ?? state.status !== undefined;
}

export function endRun(state: CallState): void {
  state.runStartedAt = 0;
  if (state.runOver) return;
  state.runOver = true;
  progress(state);
}

export function endFiles(state: CallState): void {
  if (state.filesGone) return;
  state.filesGone = true;
  progress(state);
}

/** `responded` once the connection is done and the run over; out of the in-flight set once the files are gone too. */
function progress(state: CallState): void {
  if (!state.closed) return;
  if (state.runOver && !state.responded) {
    state.responded = true;
    if (state.events.active) state.events.emit({ type: 'responded', status: state.status, completed: state.completed });
    state.kept?.ended(state);
  }
  if (state.runOver && state.filesGone) {
    state.inFlight.remove(state);
    // The payload's cleanup holds the call's body: a run that goes on, or anything else still holding the state,
    // must not keep it alive.
    state.release = undefined;
  }
}

/**
 * Tells the run to stop through its signal; for the call's events, the run is over from here. A caller still
 * waiting is answered with the reason at once (a hung-up caller has nobody left to answer).
 */
export function stopRun(state: CallState, reason: WebhookError): void {
  state.stopReason ??= reason;
  controllerOf(state).abort(reason);
  endRun(state);
  if (reason.code === 'BODY_ABORTED') return;
  if (state.onStop !== undefined) state.onStop(reason);
  else if (state.answersStops) state.answerStop(reason);
}

/**
 * Whether a run's failure is only its answer to being told to stop: the stop reason itself, an error caused by it,
 * or an AbortError (what `fetch`, timers and streams throw on an aborted signal). Such a failure is the middleware's
 * doing, not the workflow's.
 */
export function stoppedByMiddleware(state: CallState, error: unknown): boolean {
  const reason = state.stopReason;
  if (reason === undefined) return false;
  for (let link = error, depth = 0; link !== undefined && link !== null && depth < 8; depth += 1) {
    if (link === reason || (link as { name?: unknown }).name === 'AbortError') return true;
    link = (link as { cause?: unknown }).cause;
  }
  return false;
}

/** Releases the call's temp files now (run limit, shutdown). */
export function releaseFiles(state: CallState): Promise<void> {
  return (state.release?.() ?? Promise.resolve()).then(() => endFiles(state));
}

export function runTooLong(maxRunMs: number): WebhookError {
  return new WebhookError('WORKFLOW_TIMEOUT', `The run did not finish within maxRunMs (${maxRunMs} ms) and was told to stop.`, {
    hint: 'run.signal is aborted at that point; stop the work when it fires. Raise maxRunMs for longer runs.',
  });
}

const hangUp = (): WebhookError => new WebhookError('BODY_ABORTED', 'The caller closed the connection.');

/** The run's AbortController, made when first needed; already aborted if the caller has gone. */
function controllerOf(state: CallState): AbortController {
  if (state.controller === undefined) {
    state.controller = new AbortController();
    if (state.hungUp) {
      state.stopReason ??= hangUp();
      state.controller.abort(state.stopReason);
    }
  }
  return state.controller;
}

/**
 * When the run settles, fulfilled or not: the run is over, then its temp files go (a run past maxRunMs gave them up
 * earlier). `ended` undefined: no run started; `settledNow`: it settled already. Both finish the call at once, with
 * no promise: that is every call whose executor answers at once.
 */
export function afterRun(ended: Promise<unknown> | undefined, state: CallState, payload: { cleanup(): Promise<void> }, settledNow = false): void {
  if (ended === undefined || settledNow) {
    runEnded(state, payload);
    return;
  }
  const done = (): void => { runEnded(state, payload); };
  ended.then(done, done);
}

function runEnded(state: CallState, payload: { cleanup(): Promise<void> }): void {
  endRun(state);
  // Most calls have no temp files: no second step for them.
  if (payload.cleanup === noCleanup) endFiles(state);
  else void payload.cleanup().then(() => endFiles(state));
}
