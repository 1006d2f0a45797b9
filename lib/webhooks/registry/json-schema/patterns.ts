/**
 * Runs a schema's regular expressions (`pattern`, `patternProperties`, a `propertyNames` pattern) on RE2 (re2js, RE2
 * in plain JavaScript), whose matching takes time linear in the string whatever the pattern's shape. A backtracking
 * engine (V8's) can take minutes on a 30-character string against a pattern of a few dozen characters, and no filter
 * of shapes catches every such pattern; RE2 has no such patterns. A pattern is written in ECMA-262's syntax (what
 * JSON Schema says), so it is translated here to RE2's where the two differ, keeping ECMA-262's meaning; what RE2
 * cannot express (backreferences, lookahead, lookbehind) refuses the schema, with the reason, when it is compiled.
 */
import { createRequire } from 'node:module';
import type { RE2JS as Re2Class } from 're2js';
import { chargePattern } from './budget.js';
import { MAX_PROGRAM, programEstimate } from './pattern-size.js';

/** A pattern longer than this is no payload's description: refused at compile, with the schema. */
export const MAX_PATTERN_LENGTH = 1024;

/** ECMA-262's `\s`: more than RE2's `[\t\n\f\r ]`. */
const SPACE_RANGES: readonly (readonly [number, number])[] = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f],
  [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const LAST_CODE_POINT = 0x10ffff;

function hex(code: number): string {
  return `\\x{${code.toString(16)}}`;
}

function rangesText(ranges: readonly (readonly [number, number])[]): string {
  return ranges.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join('');
}

/** The code points outside `ranges` (sorted, apart), as ranges. */
function complement(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= LAST_CODE_POINT) out.push([next, LAST_CODE_POINT]);
  return out;
}

const SPACE = rangesText(SPACE_RANGES);
const NOT_SPACE = rangesText(complement(SPACE_RANGES));
/** ECMA-262's `.` without the `s` flag: anything but a line terminator (RE2's stops at `\n` only). */
const ANY_BUT_LINE_END = `[^\\n\\r${hex(0x2028)}${hex(0x2029)}]`;
const ANYTHING = `${hex(0)}-${hex(LAST_CODE_POINT)}`;

/** Why RE2 cannot run a pattern: thrown while translating, reported with the schema. */
class Inexpressible extends Error {}

/** ECMA-262's Unicode property names RE2 spells otherwise: `Script=Greek` is RE2's `Greek`. */
function unicodeProperty(name: string): string {
  const [key, value] = name.split('=');
  if (value === undefined) return key as string;
  if (/^(Script|sc|General_Category|gc)$/.test(key as string)) return value;
  throw new Inexpressible(`uses the Unicode property ${name}, which RE2 does not have`);
}

/** A code point written `\uHHHH` (a surrogate pair written as two of them is one), `\u{H…}`, `\xHH` or `\cX`. */
function codeEscape(pattern: string, at: number): { code: number; end: number } | undefined {
  const kind = pattern[at + 1];
  if (kind === 'u' && pattern[at + 2] === '{') {
    const close = pattern.indexOf('}', at);
    return { code: Number.parseInt(pattern.slice(at + 3, close), 16), end: close };
  }
  if (kind === 'u') {
    const high = Number.parseInt(pattern.slice(at + 2, at + 6), 16);
    const low = /^\\u[0-9a-fA-F]{4}/.test(pattern.slice(at + 6)) ? Number.parseInt(pattern.slice(at + 8, at + 12), 16) : -1;
    if (high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
      return { code: 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00), end: at + 11 };
    }
    if (high >= 0xd800 && high <= 0xdfff) throw new Inexpressible('holds a lone surrogate (\\u' + pattern.slice(at + 2, at + 6) + '), which RE2 cannot match');
    return { code: high, end: at + 5 };
  }
  if (kind === 'x') return { code: Number.parseInt(pattern.slice(at + 2, at + 4), 16), end: at + 3 };
  if (kind === 'c') return { code: (pattern.charCodeAt(at + 2) % 32), end: at + 2 };
  if (kind === '0') return { code: 0, end: at + 1 };
  return undefined;
}

const CONTROL: Readonly<Record<string, number>> = { n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b, f: 0x0c };

/** One escape at `at` (the backslash), in RE2's syntax, and where it ends; `inClass` inside `[…]`. */
function escape(pattern: string, at: number, inClass: boolean): { text: string; end: number } {
  const next = pattern[at + 1] as string;
  const code = codeEscape(pattern, at);
  if (code !== undefined) return { text: hex(code.code), end: code.end };
  if (next in CONTROL) return { text: hex(CONTROL[next] as number), end: at + 1 };
  if (next === 's') return { text: inClass ? SPACE : `[${SPACE}]`, end: at + 1 };
  if (next === 'S') return { text: inClass ? NOT_SPACE : `[${NOT_SPACE}]`, end: at + 1 };
  if (next === 'b' && inClass) return { text: hex(0x08), end: at + 1 };
  if ('dDwWbB'.includes(next)) return { text: `\\${next}`, end: at + 1 };
  if (next === 'p' || next === 'P') {
    const close = pattern.indexOf('}', at);
    return { text: `\\${next}{${unicodeProperty(pattern.slice(at + 3, close))}}`, end: close };
  }
  if (/[1-9]/.test(next) || next === 'k') throw new Inexpressible('uses a backreference, which no linear-time engine can match');
  // An escaped syntax character (`\.`, `\/`, `\-`): a literal, which RE2 writes the same way.
  return { text: /[A-Za-z0-9]/.test(next) ? next : `\\${next}`, end: at + 1 };
}

/** The character class opened at `start`, in RE2's syntax, and where it ends. */
function characterClass(pattern: string, start: number): { text: string; end: number } {
  const negated = pattern[start + 1] === '^';
  let i = start + (negated ? 2 : 1);
  let body = '';
  for (; i < pattern.length && pattern[i] !== ']'; i++) {
    const char = pattern[i] as string;
    if (char === '\\') {
      const escaped = escape(pattern, i, true);
      body += escaped.text;
      i = escaped.end;
    } else if (char === '[') {
      // A literal `[` to ECMA-262, where RE2 would read `[:alpha:]` as a class of its own.
      body += '\\[';
    } else {
      body += char;
    }
  }
  // `[]` matches nothing and `[^]` anything in ECMA-262; RE2 has no empty class.
  if (body === '') return { text: negated ? `[${ANYTHING}]` : `[^${ANYTHING}]`, end: i };
  return { text: `[${negated ? '^' : ''}${body}]`, end: i };
}

/** A group's opening at `at` (`(`), in RE2's syntax, and where it ends. */
function groupOpening(pattern: string, at: number): { text: string; end: number } {
  if (pattern[at + 1] !== '?') return { text: '(', end: at };
  const kind = pattern.slice(at + 2, at + 4);
  if (kind.startsWith('=') || kind.startsWith('!')) throw new Inexpressible('uses a lookahead, which RE2 cannot match');
  if (kind === '<=' || kind === '<!') throw new Inexpressible('uses a lookbehind, which RE2 cannot match');
  if (kind.startsWith('<')) return { text: '(?P<', end: at + 2 };
  return { text: '(?:', end: at + 2 };
}

/** The pattern in RE2's syntax, meaning what ECMA-262 (with the `u` flag) says it means. */
export function toRe2Syntax(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    let part: { text: string; end: number };
    if (char === '\\') part = escape(pattern, i, false);
    else if (char === '[') part = characterClass(pattern, i);
    else if (char === '(') part = groupOpening(pattern, i);
    else if (char === '.') part = { text: ANY_BUT_LINE_END, end: i };
    else part = { text: char, end: i };
    out += part.text;
    i = part.end;
  }
  return out;
}

let re2: typeof Re2Class | undefined;

/** re2js, loaded by the first pattern rather than by importing the middleware. */
function engine(): typeof Re2Class {
  re2 ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof Re2Class }).RE2JS;
  return re2;
}

/** What ajv runs for a pattern: RegExp-like, its `test` charged to the call's budget by the string's length. */
export interface LinearPattern {
  test(text: string): boolean;
  toString(): string;
  /** Instructions of RE2's program: a string costs at most its length times this many steps. */
  readonly size: number;
}

/**
 * ajv's `code.regExp`: called when a schema is compiled, so a pattern that is not ECMA-262, too long, or beyond RE2
 * refuses the schema (ajv reports the throw with the schema it was compiling).
 */
export function linearPattern(pattern: string, flags: string): LinearPattern {
  const key = `${flags} ${pattern}`;
  const known = compiled.get(key);
  if (known !== undefined) return known;
  const made = compile(pattern, flags);
  if (compiled.size >= KEPT_PATTERNS) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, made);
  return made;
}
linearPattern.code = 'workflow-webhooks linear pattern';

/** Patterns compiled lately: each schema is compiled two to four times (exact, coercing, every place), its patterns once. */
const compiled = new Map<string, LinearPattern>();
const KEPT_PATTERNS = 4096;

function compile(pattern: string, flags: string): LinearPattern {
  const quoted = JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern);
  if (pattern.length > MAX_PATTERN_LENGTH) throw new Error(`the pattern ${quoted} is longer than ${MAX_PATTERN_LENGTH} characters`);
  // Compiled only, never run: V8 says whether the pattern is ECMA-262 at all, in its own words.
  new RegExp(pattern, flags);
  const estimate = programEstimate(pattern);
  if (estimate > MAX_PROGRAM) throw new Error(`the pattern ${quoted} repeats too much to compile quickly (about ${estimate} instructions, at most ${MAX_PROGRAM}): bound its repeats, or check lengths with maxLength`);
  let program: Re2Class;
  try {
    program = engine().compile(toRe2Syntax(pattern));
  } catch (error) {
    const reason = error instanceof Inexpressible ? error.message : `cannot run in linear time (${(error as Error).message})`;
    throw new Error(`the pattern ${quoted} ${reason}`);
  }
  const size = program.re2().numberOfInstructions();
  return {
    test: (text) => {
      chargePattern(text.length, size);
      return program.test(text);
    },
    toString: () => `/${pattern}/${flags}`,
    size,
  };
}
