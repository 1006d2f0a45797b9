/**
 * Answers one matched call as the node's responseMode says: at once (onReceived), from the workflow's output under
 * the response deadline (lastNode), or from the workflow's own respond() (responseNode). Every outcome is one of:
 * an answer written here, or a WebhookError thrown to the middleware's single error writer.
 */
import type { ServerResponse } from 'node:http';
import { withDeadline, type DeadlineSettings, type StopSlot } from '../run/deadline.js';
import { WebhookError } from '../../core/errors.js';
import { reportedExecution, type ExecutionReporting } from '../run/execute.js';
import { buildReceivedResponse, buildResultResponse, type ResponsePlan } from './build-plan.js';
import { finalizeResponse, type HeaderPolicy } from './finalize.js';
import type { Responder } from './workflow-responder.js';
import { prepareShared, writeResponse } from './write-plan.js';
import type { ExecutionResult, WorkflowSettings } from '../../core/types.js';
import type { ResolvedWebhookParameters } from '../registry/contract.js';
import { isHandOff, type HandOffExecutor } from '../run/hand-off.js';

export interface Call extends ExecutionReporting {
  res: ServerResponse;
  parameters: ResolvedWebhookParameters;
  headerPolicy: HeaderPolicy;
  responder: Responder;
  deadline: DeadlineSettings;
  /**
   * The call's stops: where the middleware says it stopped the call (shutdown), so that a caller still waiting is
   * answered with the reason, and `stop()`, which aborts run.signal (deadline passed).
   */
  stops: StopSlot & { stop(reason: WebhookError): void };
  /** The workflow's run settings, for an executor that hands runs off (queue mode). */
  settings: WorkflowSettings | undefined;
  /** The header the node's authentication checked, for an executor that stores runs (it leaves its value out). */
  checkedHeader?: string | undefined;
  /** Who the node's authentication verified, for an executor that scopes idempotency keys by caller. */
  caller?: string | undefined;
  /** The hand-off refused the run, so nothing was stored: what the call took (a wait it claimed) is given back. */
  onRefused?: (() => void) | undefined;
  /** The hand-off stored the run as this job (history links the call to it). */
  onAccepted?: ((jobId: string) => void) | undefined;
}

export function writeSuccess(call: Pick<Call, 'res' | 'parameters' | 'headerPolicy'>, plan: ResponsePlan): Promise<void> | undefined {
  return writeResponse(call.res, finalizeResponse(call.parameters, plan, call.headerPolicy));
}

/** onReceived answers every call of a webhook alike: its plan is built and finalized once, then only written. */
const receivedPlans = new WeakMap<ResolvedWebhookParameters, { policy: HeaderPolicy; plan: ResponsePlan }>();

function receivedPlan(parameters: ResolvedWebhookParameters, policy: HeaderPolicy): ResponsePlan {
  const cached = receivedPlans.get(parameters);
  if (cached?.policy === policy) return cached.plan;
  const plan = finalizeResponse(parameters, buildReceivedResponse(parameters), policy);
  Object.freeze(plan.headers);
  prepareShared(plan);
  receivedPlans.set(parameters, { policy, plan });
  return plan;
}

function onTimeout(call: Call): (error: WebhookError) => void {
  return (error) => {
    call.responder.close();
    call.events.emit({ type: 'timedOut', workflowId: call.run.workflowId, nodeName: call.run.nodeName, mode: call.run.mode });
    call.stops.stop(error);
  };
}

const noResponse = (): WebhookError => new WebhookError('WORKFLOW_NO_RESPONSE', 'The workflow finished without responding to the webhook call.', {
  hint: 'With responseMode "responseNode" the workflow must call run.respond() (a Respond to Webhook node).',
});

export interface StartedCall {
  /**
   * Settles when the call is answered; rejects with what must be answered as an error. Undefined when the answer
   * is already written (onReceived, as a rule): nothing to wait for.
   */
  answer: Promise<void> | undefined;
  /** Settles when the executor has settled (it may reject; its failure was reported): temp files may go then. */
  ended: Promise<unknown>;
  /** The executor had settled already when it returned: what waits for `ended` may go on at once. */
  settled: boolean;
}

const ignore = (): void => undefined;

/** Starts the workflow and the answer as the node's responseMode says. */
export function startCall(call: Call): StartedCall {
  if (isHandOff(call.executor)) return startHandedOff(call, call.executor);
  // Only what reporting needs: a run that outlives its answer must not keep the request and response alive.
  const { outcome, settled, failed } = reportedExecution(new Reporting(call));
  return answerFrom(call, outcome, settled, failed);
}

/** What reporting a run needs of its call, and no more (a class: it lives as long as the run). */
class Reporting implements ExecutionReporting {
  readonly run: Call['run'];
  readonly executor: Call['executor'];
  readonly events: Call['events'];
  readonly report: Call['report'];
  readonly onSettled: Call['onSettled'];

  constructor(call: Call) {
    this.run = call.run;
    this.executor = call.executor;
    this.events = call.events;
    this.report = call.report;
    this.onSettled = call.onSettled;
  }
}

/**
 * Answers as the responseMode says from a run's `execution`: the call's own run (above), or a run waiting in this
 * process that the call resumed (`run.waitForCall()`: nothing new runs, and `respond()` now answers this call).
 */
export function answerFrom(call: Call, execution: Promise<ExecutionResult>, settled = false, failed = false): StartedCall {
  if (call.parameters.responseMode !== 'onReceived') return { answer: answerFromRun(call, execution), ended: execution, settled };
  // The workflow runs on, or failed: either way its failure was reported by execute(), and only the caller's answer
  // is written here. A run that ended well at once cannot reject: nothing to catch.
  if (!settled || failed) execution.catch(ignore);
  try {
    return { answer: writeResponse(call.res, receivedPlan(call.parameters, call.headerPolicy)), ended: execution, settled };
  } catch (error) {
    // The run is under way: a failed write must still reach the caller as an error, and `ended` wait for the run.
    return { answer: Promise.reject(error as Error), ended: execution, settled };
  }
}

/** lastNode and responseNode: the answer comes from the run. */
async function answerFromRun(call: Call, execution: Promise<ExecutionResult>): Promise<void> {
  const { parameters } = call;
  if (parameters.responseMode === 'lastNode') {
    const result = await withDeadline(execution, call.deadline, call.stops, onTimeout(call));
    await writeSuccess(call, buildResultResponse(parameters, result));
    return;
  }
  // responseNode: the first of respond() and the workflow's end decides.
  try {
    await withDeadline(Promise.race([call.responder.answered, execution.then(() => undefined)]), call.deadline, call.stops, onTimeout(call));
  } catch (error) {
    // After a shutdown, a late respond() is the run obeying too late, not misuse; after the deadline it is reported,
    // so the workflow's author learns that its answer was lost.
    call.responder.close(error instanceof WebhookError && error.code === 'SHUTTING_DOWN' ? error : undefined);
    throw error;
  }
  if (call.responder.responded) return;
  call.responder.close();
  const error = noResponse();
  call.events.emit({ type: 'failed', workflowId: call.run.workflowId, nodeName: call.run.nodeName, mode: call.run.mode, error });
  call.report(error);
  throw error;
}

/**
 * A run handed off (queue mode): onReceived is answered once the run is stored, and a refusal (queue down, too many
 * runs) is the caller's answer instead; the other modes answer from the run's outcome as in process. Temp files may
 * go as soon as the run is stored: it holds its own copy of every byte.
 */
function startHandedOff(call: Call, executor: HandOffExecutor): StartedCall {
  const { run, events, report, onSettled, parameters } = call;
  const awaitsOutcome = parameters.responseMode !== 'onReceived' || run.mode === 'test';
  // In the call's context: a tracer's span of the enqueue is the call's child, and travels with the job.
  const accepted = events.within(() => executor.handOff(run, { responseMode: parameters.responseMode, settings: call.settings, awaitsOutcome, checkedHeader: call.checkedHeader, caller: call.caller })).then((handed) => {
    if (events.active) {
      events.emit({ type: 'enqueued', workflowId: run.workflowId, nodeName: run.nodeName, mode: run.mode, jobId: handed.jobId, duplicate: handed.duplicate });
    }
    call.onAccepted?.(handed.jobId);
    return handed;
  });
  if (call.onRefused !== undefined) accepted.catch(call.onRefused);
  if (!awaitsOutcome) {
    const answer = accepted.then(() => writeResponse(call.res, receivedPlan(parameters, call.headerPolicy)));
    return { answer, ended: accepted, settled: false };
  }
  // A refusal stays a refusal (503, 429, 413), not a workflow failure: only the outcome goes through reporting, whose
  // reporter leaves out what the middleware's own stop caused (caller gone, deadline, shutdown) while the run goes on.
  const execution = accepted.then((handed) => reportedExecution({
    run, events, onSettled, report,
    executor: () => handed.outcome ?? Promise.reject(new Error('The queue gave no outcome for a call that waits for one.')),
  }).outcome);
  if (parameters.responseMode !== 'onReceived') return { answer: answerFromRun(call, execution), ended: execution, settled: false };
  execution.catch(ignore);
  const answer = accepted.then(() => writeResponse(call.res, receivedPlan(parameters, call.headerPolicy)));
  return { answer, ended: execution, settled: false };
}
