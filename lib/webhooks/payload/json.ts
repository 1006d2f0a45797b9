/** JSON bodies: decoded by charset, BOM stripped, parse failures turned into a 400 that says what was wrong. */
import { WebhookError } from '../errors.js';
import { decodeText } from './text.js';

export function parseJsonBody(bytes: Buffer, charset: string | undefined): unknown {
  const text = decodeText(bytes, charset);
  // An empty body (or only white space) is no body; checked without copying a body that starts with its content.
  if (text.length === 0 || (/^\s/.test(text) && text.trim() === '')) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new WebhookError('BODY_INVALID_JSON', 'Failed to parse the request body as JSON.', {
      hint: error instanceof Error ? error.message : undefined,
      cause: error,
    });
  }
}
