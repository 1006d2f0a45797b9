/**
 * A value as history keeps it: redacted, and whole when its JSON text fits the cap, else the start of that text.
 * An empty body (`{}`, `''`, none) is kept at any cap: it holds nothing, and a call without a body stays replayable.
 * A request's body and its headers, query and parameters are kept without building redacted copies when they hold
 * nothing to redact, as most calls' do (history's cost per call); what is kept equals what redactSecrets gives.
 * A value that cannot be copied or written as it is (nested past the stack, a cycle) is kept cut (kept-cut.ts): keeping
 * never throws into the call it keeps.
 */
import { isSecretName, matcherOf, redactSecrets, type CallSecrets } from '../guards/secrets.js';
import { cutCopy } from './kept-cut.js';

export interface KeptJson {
  kept: 'whole' | 'truncated' | 'none';
  value?: unknown;
  /** A body kept whole as it came: its JSON text, in place of `value` (see record-text.ts). */
  text?: string;
  /** Bytes the caller sent (Content-Length), else of the value's JSON text (0 for no value). */
  size: number;
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === '' || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
}

/** `sentBytes`: what the caller said it sent (Content-Length), the size told when the value is not kept. */
export function keptJson(value: unknown, capBytes: number, secrets: CallSecrets | undefined, sentBytes?: number): KeptJson {
  if (value === undefined) return { kept: 'none', size: 0 };
  if (isEmpty(value)) return { kept: 'whole', value, size: sentBytes ?? 0 };
  if (capBytes === 0) return { kept: 'none', size: sentBytes ?? sizeOf(value) };
  try {
    const shown = secrets === undefined ? value : redactSecrets(value, secrets);
    return kept(shown, JSON.stringify(shown) ?? 'null', capBytes, sentBytes);
  } catch {
    // Nested past what the stack holds (a host's raised bodyDepth, a workflow's answer), or not JSON data at all.
    return keptCut(value, capBytes, secrets, sentBytes);
  }
}

/**
 * A request body as its parser made it (JSON data: no dates, no undefined), kept as keptJson keeps a value. Most
 * bodies hold nothing to redact: then what is kept is the JSON text its size is measured from (`text`), which is
 * the redacted copy's text, made without building that copy; the workflow may change its body, never that text.
 */
export function keptBody(body: unknown, capBytes: number, secrets: CallSecrets, sentBytes: number | undefined): KeptJson {
  if (body === undefined || isEmpty(body) || capBytes === 0) return keptJson(body, capBytes, secrets, sentBytes);
  let text: string;
  try {
    text = JSON.stringify(body) ?? 'null';
  } catch {
    return keptJson(body, capBytes, secrets, sentBytes);
  }
  if (!keepsAsIs(text, secrets)) return keptJson(body, capBytes, secrets, sentBytes);
  const size = Buffer.byteLength(text);
  if (size > capBytes) return kept(undefined, text, capBytes, sentBytes);
  return { kept: 'whole', text, size: sentBytes ?? size };
}

/** Keys redactSecrets judges by name, as they read in JSON text (JSON.stringify writes a key as `"name":`). */
const NAMED_KEYS = /"(?:headers|query|params)":/;

/**
 * Whether redactSecrets leaves the data of this JSON text as it is: no `headers`, `query` or `params` key (its rule
 * by name) and no secret of the call in any string or key (its rule by value). JSON escapes a string character by
 * character, so a string holding a secret holds the secret's escaped text; a secret with half of a surrogate pair
 * could escape otherwise alone, so the text is not judged then (redactSecrets is).
 */
function keepsAsIs(text: string, secrets: CallSecrets): boolean {
  if (NAMED_KEYS.test(text)) return false;
  const escaped = escapedSecrets(secrets);
  return escaped !== undefined && !matcherOf(escaped).occursIn(text);
}

/** The call's secrets as JSON text writes them (one search for all: see secret-matcher.ts); undefined if one cannot be. */
const escapedOf = new WeakMap<CallSecrets, readonly string[] | undefined>();

function escapedSecrets(secrets: CallSecrets): readonly string[] | undefined {
  if (escapedOf.has(secrets)) return escapedOf.get(secrets);
  let escaped: string[] | undefined = [];
  for (const secret of [...secrets.whole, ...secrets.contained]) {
    if (/[\uD800-\uDFFF]/.test(secret)) {
      escaped = undefined;
      break;
    }
    escaped.push((JSON.stringify(secret) as string).slice(1, -1));
  }
  escapedOf.set(secrets, escaped);
  return escaped;
}

/** `value` and its JSON text, whole when the text fits the cap, else the start of the text. */
function kept(value: unknown, text: string, capBytes: number, sentBytes: number | undefined): KeptJson {
  const size = Buffer.byteLength(text);
  if (size <= capBytes) return { kept: 'whole', value, size: sentBytes ?? size };
  // The start of the text, cut on a character (a cut UTF-8 sequence would read as a replacement character).
  return { kept: 'truncated', value: Buffer.from(text).subarray(0, capBytes).toString('utf8').replace(/\uFFFD$/, ''), size: sentBytes ?? size };
}

/**
 * A value that keptJson could not copy as it is, kept as the start of a copy's text cut MAX_KEPT_DEPTH levels deep
 * (see kept-cut.ts), `truncated` at any size, so that it says so and is not replayed; `none` if even that fails.
 */
function keptCut(value: unknown, capBytes: number, secrets: CallSecrets | undefined, sentBytes: number | undefined): KeptJson {
  try {
    const copy = cutCopy(value);
    const text = JSON.stringify(secrets === undefined ? copy : redactSecrets(copy, secrets)) ?? 'null';
    const cut = kept(undefined, text, capBytes, sentBytes);
    return { kept: 'truncated', value: cut.kept === 'whole' ? text : cut.value, size: cut.size };
  } catch {
    return { kept: 'none', size: sentBytes ?? 0 };
  }
}

/** A body's size when it is not kept: what its JSON text would take, without building a redacted copy. */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value) + 2;
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return Buffer.byteLength(JSON.stringify(cutCopy(value)) ?? '');
  }
}

export type RequestParts = { headers: Record<string, unknown>; query: Record<string, unknown>; params: Record<string, unknown> };

/**
 * A call's headers, query and path parameters as history keeps them: redactSecrets' copy. Most calls carry no
 * credential: no secret to find by value, and no name redacted by name in parts that hold strings only; a copy of
 * each part is then what redactSecrets gives, made without judging every string and rebuilding every part.
 */
export function keptRequestParts(parts: RequestParts, secrets: CallSecrets): RequestParts {
  const plain = secrets.contained.length === 0 && secrets.whole.size === 0
    && flatWithoutSecretNames(parts.headers, secrets.checkedHeader) && flatWithoutSecretNames(parts.query) && flatWithoutSecretNames(parts.params);
  return plain ? { headers: { ...parts.headers }, query: { ...parts.query }, params: { ...parts.params } } : redactSecrets(parts, secrets);
}

/** Whether a part holds only strings under names redactSecrets keeps (`checkedHeader`: the header also redacted by name). */
function flatWithoutSecretNames(part: unknown, checkedHeader?: string): boolean {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) return false;
  for (const name in part) {
    if (!Object.hasOwn(part, name)) continue;
    if (typeof (part as Record<string, unknown>)[name] !== 'string' || isSecretName(name)) return false;
    if (checkedHeader !== undefined && name.toLowerCase() === checkedHeader) return false;
  }
  return true;
}
