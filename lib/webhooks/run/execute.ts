/**
 * Execute: run the host's executor and check what it gives back. Whatever goes wrong inside the workflow
 * (a throw, a rejection with anything, a malformed result) becomes one WebhookError; nothing escapes. The outcome is
 * reported as events, to the host's failure logger, and to a test listener waiting for it.
 */
import { toWebhookError, WebhookError } from '../../core/errors.js';
import type { CallEvents } from '../../core/events.js';
import type { ExecutionHint, ExecutionResult, Item, WebhookExecutor, WebhookRun } from '../../core/types.js';

function isItem(value: unknown): value is Item {
  if (typeof value !== 'object' || value === null) return false;
  const { json, binary } = value as { json?: unknown; binary?: unknown };
  return typeof json === 'object' && json !== null && !Array.isArray(json)
    && (binary === undefined || (typeof binary === 'object' && binary !== null));
}

export function checkResult(result: unknown): ExecutionResult {
  const items = (result as { items?: unknown } | null | undefined)?.items;
  if (!Array.isArray(items)) {
    throw new WebhookError('WORKFLOW_INVALID_RESULT', 'The workflow did not return its output items.', {
      hint: 'The executor must resolve with { items: [{ json: {...} }, ...] }.',
    });
  }
  const bad = items.findIndex((item) => !isItem(item));
  if (bad !== -1) {
    throw new WebhookError('WORKFLOW_INVALID_RESULT', `Output item ${bad} of the workflow is not { json: object }.`, {
      hint: 'Each item must be an object with a json object and, optionally, a binary object.',
    });
  }
  const { hints } = result as { hints?: unknown };
  if (hints === undefined) return { items: items as Item[] };
  if (!Array.isArray(hints) || !hints.every((hint) => typeof (hint as { message?: unknown } | null)?.message === 'string')) {
    throw new WebhookError('WORKFLOW_INVALID_RESULT', 'The workflow returned hints that are not [{ message }].', {
      hint: 'Return hints as { items, hints: [{ message, location?, type? }] }.',
    });
  }
  return { items: items as Item[], hints: hints as ExecutionHint[] };
}

const relayed = new WeakSet<WebhookError>();

/**
 * A failure of a run that ran elsewhere (queue mode) and was already judged there (an invalid result, say): it is
 * answered as it was, not wrapped once more as WORKFLOW_FAILED.
 */
export function relayedFailure(error: WebhookError): WebhookError {
  relayed.add(error);
  return error;
}

const failed = (cause: unknown): WebhookError => cause instanceof WebhookError && relayed.has(cause)
  ? cause
  : new WebhookError('WORKFLOW_FAILED', 'Error in workflow', { cause });

/**
 * Runs the executor once: its checked result at once when it answered at once (most do), else a promise of it. A
 * throw, a rejection and a malformed result all fail with one WebhookError: thrown, or rejected.
 */
function executeWorkflow(executor: WebhookExecutor, run: WebhookRun): ExecutionResult | Promise<ExecutionResult> {
  let result: ExecutionResult | PromiseLike<ExecutionResult>;
  try {
    result = executor(run);
  } catch (error) {
    throw failed(error);
  }
  if (typeof (result as PromiseLike<unknown> | null)?.then !== 'function') return checkResult(result);
  return Promise.resolve(result).then(checkResult, rethrowFailed);
}

function rethrowFailed(error: unknown): never {
  throw failed(error);
}

/** Who hears how a run ended. */
export interface ExecutionReporting {
  run: WebhookRun;
  executor: WebhookExecutor;
  events: CallEvents;
  report(error: WebhookError): void;
  /** Learns how the executor ended (a test listener gets the output). */
  onSettled?: ((outcome: { output?: ExecutionResult; error?: WebhookError }) => void) | undefined;
}

/** A run's outcome as a promise, and whether it had settled already when the executor returned. */
export interface Execution {
  outcome: Promise<ExecutionResult>;
  /** The executor answered at once (not with a promise): its outcome is known, nothing runs on. */
  settled: boolean;
  /** It settled, as a failure (`outcome` rejects). */
  failed: boolean;
}

/**
 * Runs the executor once, reporting its outcome; the outcome rejects with a WebhookError on failure. An executor that
 * answers at once (most do, and every onReceived run that only hands its work on) is checked and reported at once,
 * without a promise chain per call.
 */
export function reportedExecution(execution: ExecutionReporting): Execution {
  const { run, events, executor } = execution;
  if (events.active) events.emit({ type: 'started', workflowId: run.workflowId, nodeName: run.nodeName, mode: run.mode });
  let result: ExecutionResult | Promise<ExecutionResult>;
  try {
    result = events.active ? events.within(() => executeWorkflow(executor, run)) : executeWorkflow(executor, run);
    if (!(result instanceof Promise)) return { outcome: Promise.resolve(reportSuccess(execution, result)), settled: true, failed: false };
  } catch (error) {
    return { outcome: Promise.reject(reportFailure(execution, toWebhookError(error))), settled: true, failed: true };
  }
  const outcome = result.then((value) => reportSuccess(execution, value))
    .catch((error: unknown) => { throw reportFailure(execution, toWebhookError(error)); });
  return { outcome, settled: false, failed: false };
}

function reportSuccess(execution: ExecutionReporting, result: ExecutionResult): ExecutionResult {
  const { run, events } = execution;
  if (events.active) events.emit({ type: 'executed', workflowId: run.workflowId, nodeName: run.nodeName, mode: run.mode, items: result.items.length });
  execution.onSettled?.({ output: result });
  return result;
}

function reportFailure(execution: ExecutionReporting, error: WebhookError): WebhookError {
  const { run, events } = execution;
  events.emit({ type: 'failed', workflowId: run.workflowId, nodeName: run.nodeName, mode: run.mode, error });
  execution.report(error);
  execution.onSettled?.({ error });
  return error;
}
