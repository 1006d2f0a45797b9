/**
 * responseMode `responseNode`: the workflow answers the call itself through `run.respond()`, like a
 * "Respond to Webhook" node. The first response wins; a later one is ignored and reported, never sent.
 */
import type { ServerResponse } from 'node:http';
import { WebhookError } from './errors.js';
import { jsonResponse, type ResponsePlan } from './respond.js';
import { writeResponse } from './send-response.js';
import type { WorkflowResponse } from './types.js';

const HEADER_NAME = /^[!#$%&'*+.^\w`|~-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function invalid(message: string): WebhookError {
  return new WebhookError('WORKFLOW_INVALID_RESPONSE', message);
}

/** Turns what a workflow gave to `respond()` into a plan, refusing what would corrupt the HTTP answer. */
export function buildWorkflowResponse(response: WorkflowResponse): ResponsePlan {
  if (typeof response !== 'object' || response === null) throw invalid('respond() needs an object { status?, headers?, body? }.');
  const { status = 200, headers = {}, body } = response;
  if (!Number.isInteger(status) || status < 100 || status > 599) throw invalid(`respond() got the status ${String(status)}; use 100 to 599.`);
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw invalid(`respond() got an invalid header "${name}".`);
    }
    checked[name.toLowerCase()] = value;
  }
  if (body === undefined || body === null) return { status, headers: checked };
  if (typeof body === 'string') return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...checked }, body };
  if (Buffer.isBuffer(body)) {
    return { status, headers: { 'content-type': 'application/octet-stream', 'content-security-policy': 'sandbox', ...checked }, body };
  }
  const plan = jsonResponse(status, body);
  return { ...plan, headers: { ...plan.headers, ...checked } };
}

export interface Responder {
  respond(response: WorkflowResponse): void;
  readonly responded: boolean;
}

/** A responder for one call; `report` learns of responses that could not be sent. */
export function createResponder(res: ServerResponse, report: (error: WebhookError) => void): Responder {
  let responded = false;
  return {
    respond(response) {
      if (responded) {
        report(invalid('respond() was called again after the call was answered; the later response was ignored.'));
        return;
      }
      responded = true;
      let plan: ResponsePlan;
      try {
        plan = buildWorkflowResponse(response);
      } catch (error) {
        const failure = error as WebhookError;
        report(failure);
        plan = jsonResponse(failure.status, failure.toJSON());
      }
      if (!res.headersSent && !res.destroyed) writeResponse(res, plan);
    },
    get responded() {
      return responded;
    },
  };
}
