/**
 * `application/x-www-form-urlencoded` bodies, flat as the known platform parses them: `a[b]=1` stays the key
 * `a[b]`, repeated keys become arrays. Invalid percent-encoding is kept as written rather than refused. One pass over
 * the text by character code: a name or value is copied in runs between its `+` signs, and decoded only when it
 * holds a valid `%XX` (most hold none); this runs for every form call.
 */
import type { WebhookError } from '../../core/errors.js';
import { addField, type Fields } from '../body/fields.js';
import { decodeText } from './text.js';

const AMPERSAND = 38;
const EQUALS = 61;
const PLUS = 43;
const PERCENT = 37;

function isHexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 102);
}

/** Decodes a name or value whose `+` are spaces already; what does not decode is kept as written, run by run. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
      try { return decodeURIComponent(run); } catch { return run; }
    });
  }
}

export function parseFormBody(bytes: Buffer, charset: string | undefined, maxFields: number, tooMany: () => WebhookError): Fields {
  const fields: Fields = {};
  const text = decodeText(bytes, charset);
  const length = text.length;
  let count = 0;
  /** The pair being read: its name so far, its value so far (once its `=` came), whether each holds a `%XX`. */
  let name = '';
  let value = '';
  let inValue = false;
  let nameEncoded = false;
  let encoded = false;
  /** Hex digits still expected after a `%`. */
  let hexLeft = 0;
  /** Where the pair began, and where the part of it not copied yet begins. */
  let pairStart = 0;
  let from = 0;
  for (let index = 0; index <= length; index += 1) {
    const code = index === length ? AMPERSAND : text.charCodeAt(index);
    if (code === AMPERSAND) {
      if (index > pairStart) {
        if (inValue) value += text.slice(from, index);
        else name += text.slice(from, index);
        count += 1;
        if (count > maxFields) throw tooMany();
        addField(fields, (inValue ? nameEncoded : encoded) ? decoded(name) : name, inValue && encoded ? decoded(value) : value);
      }
      name = value = '';
      inValue = nameEncoded = encoded = false;
      hexLeft = 0;
      pairStart = from = index + 1;
    } else if (code === EQUALS && !inValue) {
      name += text.slice(from, index);
      inValue = true;
      nameEncoded = encoded;
      encoded = false;
      hexLeft = 0;
      from = index + 1;
    } else if (code === PLUS) {
      if (inValue) value += `${text.slice(from, index)} `;
      else name += `${text.slice(from, index)} `;
      hexLeft = 0;
      from = index + 1;
    } else if (code === PERCENT) {
      hexLeft = 2;
    } else if (hexLeft > 0) {
      hexLeft = isHexDigit(code) ? hexLeft - 1 : 0;
      if (hexLeft === 0 && isHexDigit(code)) encoded = true;
    }
  }
  return fields;
}
