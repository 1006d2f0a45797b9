/**
 * One call's state from its arrival to its last event: the run's signal (made when first needed), stopping the run
 * (hang-up, deadline, maxRunMs, shutdown), releasing its temp files, the `responded` event that closes the call,
 * and the call's place among those a shutdown waits for. The closures that outlive the answer are made here, apart
 * from the scopes that hold `req` and `res`, so that a run that goes on keeps neither alive.
 */
import type { ServerResponse } from 'node:http';
import { WebhookError } from '../errors.js';
import type { CallEvents } from '../events.js';
import type { WebhookLogger } from '../logger.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import type { InFlight } from './in-flight.js';
import { runLifetime, runTooLong } from './lifetime.js';

/** What was really sent, read when the connection is done. */
export interface Sent {
  status: number | undefined;
  completed: boolean;
}

export function newCallState(callId: string): CallState {
  let runEnded!: () => void;
  let released!: () => void;
  const runOver = new Promise<void>((resolve) => { runEnded = resolve; });
  const filesGone = new Promise<void>((resolve) => { released = resolve; });
  return {
    callId, executing: false, reported: false, controller: undefined, hungUp: false, webhook: undefined, answered: false,
    runEnded, released, runOver, filesGone,
  };
}

/**
 * Learns what was really sent when the connection is done, and stops a run whose caller hung up. Kept apart from
 * the closures that outlive the answer, so that a run that goes on does not keep the request and response alive.
 */
export function watchClose(res: ServerResponse, state: CallState, sent: Sent): Promise<void> {
  return new Promise<void>((resolve) => {
    res.once('close', () => {
      state.answered = res.headersSent;
      sent.status = res.headersSent ? res.statusCode : undefined;
      sent.completed = res.writableFinished;
      if (!res.writableFinished) {
        state.hungUp = true;
        if (state.executing) stopRun(state, hangUp());
      }
      resolve();
    });
  });
}

/** The responded event, last of the call, and the call's place among those a shutdown waits for. */
export function trackCall(inFlight: InFlight, state: CallState, events: CallEvents, closed: Promise<void>, sent: Sent): void {
  void Promise.all([closed, state.runOver]).then(() => events.emit({ type: 'responded', ...sent }));
  inFlight.add({
    done: Promise.all([closed, state.filesGone]).then(() => undefined),
    stop: (reason) => stopRun(state, reason),
    release: () => (state.release ?? noFiles)().then(state.released),
  });
}

export interface CallState {
  callId: string;
  executing: boolean;
  /** The failure was reported to onWorkflowError or the logger already. */
  reported: boolean;
  /** Created on first use of run.signal, or by a deadline: most runs never look at it. */
  controller: AbortController | undefined;
  hungUp: boolean;
  webhook: RegisteredWebhook | undefined;
  /** Removes the call's temp files now (shutdown); set once the payload is parsed. */
  release?: () => Promise<void>;
  /** Says the run settled, was told to stop, or never started. */
  runEnded: () => void;
  /** Says the call's temp files are gone (or it had none). */
  released: () => void;
  /** Whether an answer went out, as known when the connection closed. */
  answered: boolean;
  /** Settle when runEnded / released are called. */
  runOver: Promise<void>;
  filesGone: Promise<void>;
}

const noFiles = (): Promise<void> => Promise.resolve();

/** Tells the run to stop through its signal; for the call's events, the run is over from here. */
export function stopRun(state: CallState, reason: WebhookError): void {
  controllerOf(state).abort(reason);
  state.runEnded();
}


export const hangUp = (): WebhookError => new WebhookError('BODY_ABORTED', 'The caller closed the connection.');

/** The run's AbortController, made when first needed; already aborted if the caller has gone. */
export function controllerOf(state: CallState): AbortController {
  if (state.controller === undefined) {
    state.controller = new AbortController();
    if (state.hungUp) state.controller.abort(hangUp());
  }
  return state.controller;
}



export function signalOf(state: CallState): () => AbortSignal {
  return () => controllerOf(state).signal;
}

export function stopperOf(state: CallState): (reason: WebhookError) => void {
  return (reason) => stopRun(state, reason);
}

export function cleanupOf(payload: { cleanup(): Promise<void> }): () => Promise<void> {
  return () => payload.cleanup();
}


/**
 * Temp files live until the run no longer needs them, not merely until the answer is sent; a run past maxRunMs is
 * told to stop and gives them up.
 */
export function limitRun(settled: Promise<void>, state: CallState, maxRunMs: number, logger: WebhookLogger): Promise<void> {
  void settled.then(state.runEnded);
  return runLifetime(settled, maxRunMs, () => {
    const error = runTooLong(maxRunMs);
    stopRun(state, error);
    logger.warn({ callId: state.callId, workflowId: state.webhook?.workflowId, nodeName: state.webhook?.nodeName, maxRunMs }, error.message);
  });
}

export function afterRun(ended: Promise<void>, state: CallState, payload: { cleanup(): Promise<void> }): void {
  void ended.then(() => payload.cleanup()).then(() => {
    state.runEnded();
    state.released();
  });
}
