/**
 * `application/x-www-form-urlencoded` bodies, flat as the known platform parses them: `a[b]=1` stays the key
 * `a[b]`, repeated keys become arrays. Invalid percent-encoding is kept as written rather than refused.
 */
import type { WebhookError } from '../../core/errors.js';
import { addField, type Fields } from '../body/fields.js';
import { decodeText } from './text.js';

function decodeComponent(text: string): string {
  // Most names and values need no decoding at all.
  if (!text.includes('%') && !text.includes('+')) return text;
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // Decode what can be decoded: each valid %XX run on its own, the rest as written.
    return spaced.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
      try { return decodeURIComponent(run); } catch { return run; }
    });
  }
}

export function parseFormBody(bytes: Buffer, charset: string | undefined, maxFields: number, tooMany: () => WebhookError): Fields {
  const fields: Fields = {};
  const text = decodeText(bytes, charset);
  if (text === '') return fields;
  let count = 0;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    count += 1;
    if (count > maxFields) {
      throw tooMany();
    }
    const equals = pair.indexOf('=');
    const name = decodeComponent(equals === -1 ? pair : pair.slice(0, equals));
    addField(fields, name, equals === -1 ? '' : decodeComponent(pair.slice(equals + 1)));
  }
  return fields;
}
