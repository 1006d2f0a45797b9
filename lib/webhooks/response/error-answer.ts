/**
 * The one place where errors become HTTP: a JSON body `{ code, message, hint? }` with the error's status, or,
 * with option errorHandling 'next', the host's own error handler.
 */
import type { ServerResponse } from 'node:http';
import type { WebhookError } from '../../core/errors.js';
import { jsonResponse, type ResponsePlan } from './build-plan.js';
import { writeResponse } from './write-plan.js';

export function errorResponse(error: WebhookError): ResponsePlan {
  return jsonResponse(error.status, error.toJSON(), { ...error.headers });
}

export function sendError(
  res: ServerResponse,
  next: (err?: unknown) => void,
  error: WebhookError,
  handling: 'respond' | 'next',
): void {
  if (handling === 'next') {
    next(error);
    return;
  }
  if (res.headersSent) {
    // Part of an answer is on the wire already; cutting the connection is the only honest signal left.
    res.destroy();
    return;
  }
  // Every header set so far stays: the host's own (security policies, request ids) and our CORS headers, so that
  // a browser caller can read the error.
  writeResponse(res, errorResponse(error));
}
