/**
 * Removes from a Standard Schema issue's message every text the caller sent.
 * A 422 may reach someone other than the caller (logs, recent calls, a proxy), and libraries quote what they got in
 * their own ways: JSON-quoted, single-quoted, bare, after the schema's own transforms (trimmed, lower-cased), numbers
 * bare, unknown key names. Rather than recognise each library's wording, this collects what the caller could have
 * sent at the issue's place and cuts those texts out wherever they appear.
 */
import type { StandardSchemaIssue, StandardSchemaPath } from '../../core/schemas.js';

const SENT = '(the value sent)';
/** What a message becomes when the issue or the input cannot be read safely. */
const UNREADABLE = 'is not valid';
/** A large body costs little: only the first texts, this shallow, are looked for. */
const MAX_TEXTS = 200;
const MAX_DEPTH = 4;

/** A text to cut: `anywhere` when it cannot be part of a longer word or number of the schema's own. */
interface CallerText {
  readonly text: string;
  readonly anywhere: boolean;
}

export function withoutCallerValues(message: string, issue: StandardSchemaIssue, input: unknown): string {
  try {
    if (typeof message !== 'string') return UNREADABLE;
    const texts = callerTexts(issue, input).filter(({ text }) => text !== '' && text.length <= message.length);
    if (texts.length === 0) return message;
    // One pass, longest first: a shorter text must not cut into a longer one, nor into a replacement already made.
    texts.sort((a, b) => b.text.length - a.text.length);
    const pattern = texts.map(({ text, anywhere }) => (anywhere ? escape(text) : `(?<![\\w.+-])${escape(text)}(?![\\w]|\\.\\d)`));
    return message.replace(new RegExp(pattern.join('|'), 'gi'), SENT);
  } catch {
    return UNREADABLE;
  }
}

function callerTexts(issue: StandardSchemaIssue, input: unknown): CallerText[] {
  const carried = issue as unknown as Record<string, unknown>;
  // arktype names the value `data`, while its `input` is its own rule (a bound such as 5, which must survive) and its
  // `actual` a description such as `a string`; valibot, zod and effect carry the value as `input` or `actual`.
  const values = 'data' in carried ? [carried.data] : [carried.input, carried.actual];
  values.push(valueAt(input, issue.path));
  if (Array.isArray(carried.keys)) values.push(carried.keys);
  const texts: CallerText[] = [];
  for (const value of values) for (const scalar of scalarsIn(value)) texts.push(...forms(scalar));
  // valibot's `received` is the value already printed (`"abc"`, `12`); zod 3's is the value or the name of its type.
  if (typeof carried.received === 'string') texts.push(...printed(carried.received));
  return texts;
}

function printed(text: string): CallerText[] {
  const isTypeName = /^[A-Za-z_$][\w$]*$/.test(text);
  return [...quoted(text), ...(isTypeName ? [] : [{ text, anywhere: text.length >= 4 && !/^[-+]?\d/.test(text) }])];
}

function valueAt(root: unknown, path: StandardSchemaPath | undefined): unknown {
  let value = root;
  for (const segment of path ?? []) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[typeof segment === 'object' ? segment.key : segment];
  }
  return value;
}

/** The value itself when scalar, else its keys and scalar leaves, breadth first (top-level keys are what gets named). */
function scalarsIn(root: unknown): Array<string | number | bigint | boolean> {
  const found: Array<string | number | bigint | boolean> = [];
  const seen = new Set<object>();
  let level: unknown[] = [root];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0 && found.length < MAX_TEXTS; depth++) {
    const next: unknown[] = [];
    for (const value of level) {
      if (found.length >= MAX_TEXTS) break;
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
        found.push(value);
      } else if (typeof value === 'object' && value !== null && !seen.has(value)) {
        seen.add(value);
        const isArray = Array.isArray(value);
        for (const key of Object.keys(value).slice(0, MAX_TEXTS)) {
          if (!isArray) found.push(key);
          next.push((value as Record<string, unknown>)[key]);
        }
      }
    }
    level = next;
  }
  return found.slice(0, MAX_TEXTS);
}

/**
 * How a scalar can appear. A string: quoted anywhere, bare when long enough not to be letters of a word, and trimmed
 * as a schema may have done before checking it (case is ignored when matching, for the lower- or upper-casing).
 * A number, bigint or boolean: only as a whole token, so that `1` is not cut out of a bound such as `10` or `>=1.5`.
 */
function forms(scalar: string | number | bigint | boolean): CallerText[] {
  if (typeof scalar !== 'string') {
    const token = String(scalar);
    return typeof scalar === 'bigint' ? [{ text: token, anywhere: false }, { text: `${token}n`, anywhere: false }] : [{ text: token, anywhere: false }];
  }
  const variants = new Set([scalar, scalar.trim()]);
  const texts: CallerText[] = [];
  for (const variant of variants) {
    texts.push(...quoted(variant));
    if (variant.length >= 4) texts.push({ text: variant, anywhere: true });
    // A query or header value is text that a schema may coerce and then print as a number.
    const number = Number(variant);
    if (variant.trim() !== '' && Number.isFinite(number)) texts.push({ text: variant, anywhere: false }, { text: String(number), anywhere: false });
  }
  return texts;
}

function quoted(text: string): CallerText[] {
  return text === '' ? [] : [{ text: JSON.stringify(text), anywhere: true }, { text: `'${text}'`, anywhere: true }];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
