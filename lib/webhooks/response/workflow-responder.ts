/**
 * responseMode `responseNode`: the workflow answers the call itself through `run.respond()`, like a
 * "Respond to Webhook" node. The first response wins; a later one is ignored and reported, never sent.
 */
import { WebhookError } from '../../core/errors.js';
import { isHeaderName, isHeaderValue } from '../registry/node-options.js';
import { jsonResponse, type ResponsePlan } from './build-plan.js';
import type { WorkflowResponse } from '../../core/types.js';


function invalid(message: string, cause?: WebhookError): WebhookError {
  return new WebhookError('WORKFLOW_INVALID_RESPONSE', message, cause === undefined ? undefined : { cause });
}

/** Turns what a workflow gave to `respond()` into a plan, refusing what would corrupt the HTTP answer. */
export function buildWorkflowResponse(response: WorkflowResponse): ResponsePlan {
  if (typeof response !== 'object' || response === null) throw invalid('respond() needs an object { status?, headers?, body? }.');
  const { status = 200, headers = {}, body } = response;
  if (!Number.isInteger(status) || status < 100 || status > 599) throw invalid(`respond() got the status ${String(status)}; use 100 to 599.`);
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderName(name) || !isHeaderValue(value)) {
      throw invalid(`respond() got an invalid header "${name}".`);
    }
    checked[name.toLowerCase()] = value;
  }
  if (body === undefined || body === null) return { status, headers: checked };
  if (typeof body === 'string') return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...checked }, body };
  if (Buffer.isBuffer(body)) {
    return { status, headers: { 'content-type': 'application/octet-stream', ...checked }, body };
  }
  const plan = jsonResponse(status, body);
  return { ...plan, headers: { ...plan.headers, ...checked } };
}

export interface Responder {
  respond(response: WorkflowResponse): void;
  readonly responded: boolean;
  /** Resolves when the workflow first calls respond(). */
  readonly answered: Promise<void>;
  /**
   * After this, respond() only reports: the call was answered otherwise (deadline, shutdown, failure). With a
   * `reason` (shutdown), a late respond() is reported as caused by it, which the middleware does not count as misuse.
   */
  close(reason?: WebhookError): void;
}

/** For modes other than responseNode: never answered by the workflow, nothing to close. */
export const NO_RESPONDER: Responder = Object.freeze({
  respond: () => undefined,
  responded: false,
  answered: new Promise<void>(() => undefined),
  close: () => undefined,
});

/** A responder for one call: `write` sends a plan, `report` learns of responses that could not be sent. */
export function createResponder(writePlan: (plan: ResponsePlan) => void, report: (error: WebhookError) => void): Responder {
  // Dropped once the call is answered or closed, so a run that goes on does not keep the response alive.
  let write: ((plan: ResponsePlan) => void) | undefined = writePlan;
  let responded = false;
  let closed = false;
  let closedBy: WebhookError | undefined;
  let markAnswered!: () => void;
  const answered = new Promise<void>((resolve) => { markAnswered = resolve; });
  return {
    respond(response) {
      if (responded || closed) {
        const unanswered = closed && !responded;
        report(invalid(`respond() was called after the call was answered${unanswered ? ' (deadline passed, shutdown or the workflow failed)' : ''}; this response was ignored.`,
          unanswered ? closedBy : undefined));
        return;
      }
      responded = true;
      markAnswered();
      const send = write as (plan: ResponsePlan) => void;
      write = undefined;
      try {
        send(buildWorkflowResponse(response));
      } catch (error) {
        const failure = error as WebhookError;
        report(failure);
        send(jsonResponse(failure.status, failure.toJSON()));
      }
    },
    get responded() {
      return responded;
    },
    answered,
    close(reason) {
      closed = true;
      closedBy ??= reason;
      write = undefined;
    },
  };
}
