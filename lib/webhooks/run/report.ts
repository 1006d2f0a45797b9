/**
 * Where a workflow's failure goes: the host's onWorkflowError, else the logger, saying whether the caller was told.
 * A run that only obeyed the middleware's stop (shutdown, deadline, hang-up) did not fail, and is not reported.
 */
import { WebhookError } from '../../core/errors.js';
import { errorFields } from '../../core/logger.js';
import type { WebhookLogger } from '../../core/logger.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import type { WebhookKind, WebhookRun } from '../../core/types.js';
import { answered, stoppedByMiddleware, type CallState } from './call-state.js';

/** Where a workflow failed, and whether its caller had been answered already (else it gets the error answer). */
export interface WorkflowFailureContext {
  workflowId: string;
  nodeName: string;
  mode: WebhookKind;
  webhook: RegisteredWebhook;
  callId: string;
  answered: boolean;
}

export interface FailureSinks {
  onWorkflowError: ((error: WebhookError, context: WorkflowFailureContext) => void) | undefined;
  logger: WebhookLogger;
}

export function reporter(
  options: FailureSinks,
  state: CallState,
  webhook: RegisteredWebhook,
  mode: WebhookKind,
): (error: WebhookError) => void {
  return (error) => {
    if (stoppedByMiddleware(state, error)) return;
    state.reported = true;
    const wasAnswered = answered(state);
    if (options.onWorkflowError !== undefined) {
      options.onWorkflowError(error, {
        workflowId: webhook.workflowId, nodeName: webhook.nodeName, mode, webhook, callId: state.callId, answered: wasAnswered,
      });
      return;
    }
    options.logger.error({ callId: state.callId, err: errorFields(error), workflowId: webhook.workflowId, nodeName: webhook.nodeName, mode },
      wasAnswered ? 'workflow failed after its caller was answered' : `workflow failed; the caller is answered ${error.status} ${error.code}`);
  };
}

/** respond() of a node that does not answer with it: reported, and ignored. */
export function ignoreRespond(report: (error: WebhookError) => void): WebhookRun['respond'] {
  return () => {
    report(new WebhookError('WORKFLOW_INVALID_RESPONSE',
      'respond() was called, but the Webhook node\'s responseMode is not "responseNode"; the response was ignored.'));
  };
}
