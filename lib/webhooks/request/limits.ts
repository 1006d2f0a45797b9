/**
 * Bounds on the request line and headers, checked before anything else: a URL longer than `limits.urlLength` is
 * a 414, more headers or header bytes than `limits.headerCount`/`limits.headerSize` a 431. Node's own parser
 * refuses headers past its --max-http-header-size (16 KiB) before any middleware runs (see handleClientError).
 */
import type { IncomingMessage } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import type { RequestLimits } from '../../core/option-limits.js';

export type { RequestLimits } from '../../core/option-limits.js';

export function checkRequestLimits(req: IncomingMessage, limits: RequestLimits): void {
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
  if (url.length > limits.urlLength) {
    throw new WebhookError('LIMIT_URL_LENGTH', `The request URL is longer than the limit of ${limits.urlLength} characters.`, {
      hint: 'Send the data in the body, or raise the middleware option limits.urlLength.',
    });
  }
  const raw = req.rawHeaders;
  if (raw.length / 2 > limits.headerCount) {
    throw new WebhookError('LIMIT_HEADERS', `The request has more than ${limits.headerCount} headers.`, { hint: 'Raise the middleware option limits.headerCount.' });
  }
  let size = 0;
  for (const part of raw) size += part.length;
  if (size > limits.headerSize) {
    throw new WebhookError('LIMIT_HEADERS', `The request headers are larger than the limit of ${limits.headerSize} bytes.`, { hint: 'Raise the middleware option limits.headerSize.' });
  }
}
