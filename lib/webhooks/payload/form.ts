/**
 * `application/x-www-form-urlencoded` bodies, flat as the known platform parses them: `a[b]=1` stays the key
 * `a[b]`, repeated keys become arrays. Invalid percent-encoding is kept as written rather than refused. One pass
 * over the text with indexOf, no array of pairs: this runs for every form call.
 */
import type { WebhookError } from '../../core/errors.js';
import { addField, type Fields } from '../body/fields.js';
import { decodeText } from './text.js';

const PLUS = /\+/g;

/** `text[start, end)` decoded; `escaped` says whether the body has any `%` or `+` at all (most names have none). */
function component(text: string, start: number, end: number, escaped: boolean): string {
  const raw = text.slice(start, end);
  if (!escaped || (raw.indexOf('%') === -1 && raw.indexOf('+') === -1)) return raw;
  const spaced = raw.indexOf('+') === -1 ? raw : raw.replace(PLUS, ' ');
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
  const length = text.length;
  if (length === 0) return fields;
  const escaped = text.indexOf('%') !== -1 || text.indexOf('+') !== -1;
  let count = 0;
  // The next '=' at or after the current pair, found once and kept until passed: scanning for it from every pair
  // would read the rest of a body without '=' again for each of its pairs.
  let equals = -1;
  for (let start = 0; start <= length;) {
    let end = text.indexOf('&', start);
    if (end === -1) end = length;
    if (end > start) {
      count += 1;
      if (count > maxFields) throw tooMany();
      if (equals < start) {
        equals = text.indexOf('=', start);
        if (equals === -1) equals = length + 1;
      }
      const split = equals < end;
      addField(fields, component(text, start, split ? equals : end, escaped), split ? component(text, equals + 1, end, escaped) : '');
    }
    start = end + 1;
  }
  return fields;
}
