/**
 * Fifth and sixth stages wired for one matched call: run the executor under the response deadline and answer as
 * the node's responseMode says. Every outcome is one of: an answer written here, or a WebhookError thrown to the
 * middleware's single error writer.
 */
import type { ServerResponse } from 'node:http';
import { withDeadline, type DeadlineSettings } from '../run/deadline.js';
import { toWebhookError, WebhookError } from '../errors.js';
import type { CallEvents } from '../events.js';
import { executeWorkflow } from '../run/execute.js';
import { buildReceivedResponse, buildResultResponse, finalizeResponse, type ResponsePlan } from './build-plan.js';
import type { Responder } from './workflow-responder.js';
import { writeResponse } from './write-plan.js';
import type { ExecutionResult, ResolvedWebhookParameters, WebhookExecutor, WebhookRun } from '../types.js';

export interface Call {
  res: ServerResponse;
  run: WebhookRun;
  executor: WebhookExecutor;
  parameters: ResolvedWebhookParameters;
  responder: Responder;
  /** Aborts run.signal (deadline passed). */
  abort(reason: WebhookError): void;
  deadline: DeadlineSettings;
  events: CallEvents;
  report(error: WebhookError): void;
  /** Learns how the executor ended (a test listener gets the output). */
  onSettled?: (outcome: { output?: ExecutionResult; error?: WebhookError }) => void;
}

export function writeSuccess(call: Pick<Call, 'res' | 'parameters'>, plan: ResponsePlan): Promise<void> | undefined {
  return writeResponse(call.res, finalizeResponse(call.parameters, plan));
}

/** Runs the executor once, reporting its outcome; the promise rejects with a WebhookError on failure. */
function execute(call: Call): Promise<ExecutionResult> {
  const { run, events } = call;
  const where = { workflowId: run.workflowId, nodeName: run.nodeName, mode: run.mode };
  events.emit({ type: 'started', ...where });
  return executeWorkflow(call.executor, run).then((result) => {
    events.emit({ type: 'executed', ...where, items: result.items.length });
    call.onSettled?.({ output: result });
    return result;
  }, (thrown: unknown) => {
    const error = toWebhookError(thrown);
    events.emit({ type: 'failed', ...where, error });
    call.report(error);
    call.onSettled?.({ error });
    throw error;
  });
}

function onTimeout(call: Call): (error: WebhookError) => void {
  return (error) => {
    call.responder.close();
    call.events.emit({ type: 'timedOut', workflowId: call.run.workflowId, nodeName: call.run.nodeName, mode: call.run.mode });
    call.abort(error);
  };
}

const noResponse = (): WebhookError => new WebhookError('WORKFLOW_NO_RESPONSE', 'The workflow finished without responding to the webhook call.', {
  hint: 'With responseMode "responseNode" the workflow must call run.respond() (a Respond to Webhook node).',
});

export interface StartedCall {
  /** Settles when the call is answered; rejects with what must be answered as an error. */
  answer: Promise<void>;
  /** Settles when the executor has settled (never rejects): temp files may go then. */
  ended: Promise<void>;
}

/** Starts the workflow and the answer as the node's responseMode says. */
export function startCall(call: Call): StartedCall {
  const execution = execute(call);
  const ended = execution.then(() => undefined, () => undefined);
  return { answer: answer(call, execution), ended };
}

async function answer(call: Call, execution: Promise<ExecutionResult>): Promise<void> {
  const { parameters } = call;
  if (parameters.responseMode === 'onReceived') {
    // The workflow runs on; its failure was reported by execute().
    execution.catch(() => undefined);
    await writeSuccess(call, buildReceivedResponse(parameters));
    return;
  }
  if (parameters.responseMode === 'lastNode') {
    const result = await withDeadline(execution, call.deadline, onTimeout(call));
    await writeSuccess(call, buildResultResponse(parameters, result));
    return;
  }
  // responseNode: the first of respond() and the workflow's end decides.
  try {
    await withDeadline(Promise.race([call.responder.answered, execution.then(() => undefined)]), call.deadline, onTimeout(call));
  } catch (error) {
    call.responder.close();
    throw error;
  }
  if (call.responder.responded) return;
  call.responder.close();
  const error = noResponse();
  call.events.emit({ type: 'failed', workflowId: call.run.workflowId, nodeName: call.run.nodeName, mode: call.run.mode, error });
  call.report(error);
  throw error;
}
