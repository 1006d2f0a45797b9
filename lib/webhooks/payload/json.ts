/**
 * JSON bodies: decoded by charset, BOM stripped, parse failures turned into a 400 that says what was wrong, and a
 * body nested deeper than `maxDepth` refused (BODY_TOO_DEEP) before anything walks it.
 */
import { WebhookError } from '../../core/errors.js';
import { nestsDeeper, tooDeep } from './depth.js';
import { decodeText } from './text.js';

export function parseJsonBody(bytes: Buffer, charset: string | undefined, maxDepth: number): unknown {
  const text = decodeText(bytes, charset);
  // An empty body (or only white space) is no body; checked without copying a body that starts with its content.
  if (text.length === 0 || (/^\s/.test(text) && text.trim() === '')) return {};
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new WebhookError('BODY_INVALID_JSON', 'Failed to parse the request body as JSON.', {
      hint: error instanceof Error ? error.message : undefined,
      cause: error,
    });
  }
  // A text shorter than an opening and a closing bracket per level cannot nest too deep: most calls skip the walk.
  if (text.length > 2 * maxDepth && nestsDeeper(value, maxDepth)) throw tooDeep(maxDepth);
  return value;
}
