/**
 * The hand-off contract: an executor that runs workflows somewhere else (queue mode) and says when a run is accepted
 * before it ends. Matching, guards, parsing and response plans stay the same code in both modes; what changes is when
 * an `onReceived` call is answered: in process at once, with a hand-off once `handOff()` resolves (the run is stored).
 */
import type { Keyring } from '../../core/sealing.js';
import type { ExecutionResult, ResponseMode, WebhookExecutor, WebhookRun, WorkflowSettings } from '../../core/types.js';

/** What a hand-off learns about the call beyond its run. */
export interface HandOffContext {
  responseMode: ResponseMode;
  /** The activated workflow's run settings. */
  settings: WorkflowSettings | undefined;
  /** The call waits for the run's outcome: `lastNode`, `responseNode`, and every test call (its listener shows the output). */
  awaitsOutcome: boolean;
  /**
   * The header the node's own authentication checked (lower case): the guard has done its work, and a store of the
   * run leaves its value out (a credential is checked, never kept).
   */
  checkedHeader?: string | undefined;
  /**
   * Who the node's authentication verified (the Basic user, the JWT's issuer and subject), never the credential:
   * an idempotency key holds within one caller. Undefined for an address without authentication.
   */
  caller?: string | undefined;
}

/** A run the hand-off accepted. */
export interface AcceptedRun {
  /** The job that holds the run. */
  jobId: string;
  /** The call repeats one accepted before (same idempotency key): nothing new was stored or run. */
  duplicate: boolean;
  /**
   * With `awaitsOutcome`: settles as the run does, wherever it runs; the run's `respond()` answers arrive through
   * `run.respond` meanwhile. Rejects with the run's failure.
   */
  outcome?: Promise<ExecutionResult>;
}

/** An executor (callable where any executor goes) whose runs leave the process through `handOff`. */
export interface HandOffExecutor extends WebhookExecutor {
  /**
   * Stores the run; resolves once it is safely accepted, rejects with a WebhookError (503 `QUEUE_UNAVAILABLE`,
   * 429 `TOO_MANY_RUNS`, 413) when it is not: then nothing was stored and the caller is told so.
   */
  handOff(run: WebhookRun, context: HandOffContext): Promise<AcceptedRun>;
  /**
   * A signed call's message id seen before is this executor's to answer (it deduplicates, answering as the first),
   * so the middleware does not refuse it as a replay.
   */
  readonly deduplicates: boolean;
}

export function isHandOff(executor: WebhookExecutor): executor is HandOffExecutor {
  return typeof (executor as Partial<HandOffExecutor>).handOff === 'function';
}

/** The keys a hand-off seals stored runs with (its `encryption`), kept off its public shape. */
const keyrings = new WeakMap<WebhookExecutor, Keyring>();

/** Says which keys the hand-off seals runs with: history seals kept calls with them too, unless given others. */
export function sealsWith(executor: HandOffExecutor, keyring: Keyring): void {
  keyrings.set(executor, keyring);
}

export function keyringOf(executor: WebhookExecutor): Keyring | undefined {
  return keyrings.get(executor);
}
