/**
 * Writes the console's answers: JSON with no caching, and every error as `{ code, message, hint? }` with its
 * status. The one place where the console turns an error into HTTP; anything that is not a WebhookError is an
 * internal failure, reported to the logger with its cause and answered 500 without its details.
 */
import type { ServerResponse } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import { errorFields, type WebhookLogger } from '../../core/logger.js';
import { addHeader } from '../../webhooks/response/host-headers.js';

/** Headers every answer of the console carries, beside the host's. */
export function guardHeaders(res: ServerResponse): void {
  addHeader(res, 'x-content-type-options', 'nosniff');
  addHeader(res, 'referrer-policy', 'no-referrer');
  addHeader(res, 'cache-control', 'no-store');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  guardHeaders(res);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

export function sendConsoleError(res: ServerResponse, thrown: unknown, logger: WebhookLogger, during: string): void {
  const error = thrown instanceof WebhookError
    ? thrown
    : new WebhookError('INTERNAL_ERROR', 'The console could not answer this request.', { cause: thrown });
  if (error.status >= 500) logger.error({ ...errorFields(error), during }, `workflow-webhooks/console: ${during} failed`);
  if (res.headersSent) {
    // An event stream or a download that failed halfway: nothing can be said any more, only ended.
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  sendJson(res, error.status, error.toJSON());
}

export function notFound(what: string, hint?: string): WebhookError {
  return new WebhookError('CONSOLE_NOT_FOUND', what, hint === undefined ? {} : { hint });
}

export function badRequest(message: string): WebhookError {
  return new WebhookError('CONSOLE_BAD_REQUEST', message);
}
