/**
 * The regular expressions of payload schemas (`pattern`, `patternProperties`), made safe to run on what callers send.
 * A schema may come from an imported workflow, and a backtracking pattern can take seconds on a crafted string, so
 * a pattern is checked when its schema is compiled and bounded when it runs:
 * - at most 256 characters, no backreferences, no group repeated more than once that itself repeats a varying
 *   number of times or alternates (`(a+)+`, `(a|ab)*`: exponential), at most 3 unbounded repeats (`*`, `+`, `{n,}`:
 *   polynomial in their number);
 * - a string of up to 256 characters is tested at once (the bounds above keep that cheap); a longer one in a
 *   separate V8 context with a 50 ms budget, past which it does not match.
 */
import { createContext, Script } from 'node:vm';

export const MAX_PATTERN_LENGTH = 256;
const MAX_UNBOUNDED_REPEATS = 3;
/** Strings up to this length are tested directly; longer ones under the time budget. */
const DIRECT_LENGTH = 256;
const BUDGET_MS = 50;

/** What may follow `(` to say what a group is: `?:`, `?=`, `?!`, `?<=`, `?<!`, `?<name>`. */
const GROUP_KIND = /^\?(?:<[=!]|<[^>]*>|[:=!])/;

/** Why a pattern is refused, or undefined when it is safe to run. */
export function riskyPattern(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  // Each open group: whether it holds a repeat or an alternation so far.
  const groups: { repeats: boolean; alternates: boolean }[] = [{ repeats: false, alternates: false }];
  let unbounded = 0;
  let closed: { repeats: boolean; alternates: boolean } | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    const top = groups[groups.length - 1] as { repeats: boolean; alternates: boolean };
    const after = closed;
    closed = undefined;
    if (char === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && pattern[i + 2] === '<')) return 'uses a backreference';
      i++;
      continue;
    }
    if (char === '[') {
      i = classEnd(pattern, i);
      continue;
    }
    if (char === '(') {
      groups.push({ repeats: false, alternates: false });
      // `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`: what follows `(?` says what the group is, not how often.
      if (pattern[i + 1] === '?') i += (GROUP_KIND.exec(pattern.slice(i + 1))?.[0].length ?? 0);
      continue;
    }
    if (char === ')') {
      closed = groups.length > 1 ? groups.pop() : undefined;
      if (closed !== undefined) {
        const outer = groups[groups.length - 1] as { repeats: boolean; alternates: boolean };
        outer.repeats ||= closed.repeats;
      }
      continue;
    }
    if (char === '|') {
      top.alternates = true;
      continue;
    }
    const repeat = repeatAt(pattern, i);
    if (repeat === undefined) continue;
    i = repeat.end;
    if (repeat.unbounded && ++unbounded > MAX_UNBOUNDED_REPEATS) return `has more than ${MAX_UNBOUNDED_REPEATS} unbounded repeats (*, +, {n,})`;
    if (repeat.many && after !== undefined && (after.repeats || after.alternates)) return 'repeats a group that itself repeats or alternates, e.g. (a+)+ or (a|ab)*';
    if (repeat.varies) top.repeats = true;
  }
  return undefined;
}

/** The index of the `]` closing the character class opened at `start`. */
function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  return pattern.length;
}

/**
 * A quantifier at `i`, and where it ends (lazy `?` included): `many` when it repeats more than once, `varies` when
 * the count is not fixed (a fixed `{2}` leaves a backtracker nothing to try), `unbounded` for `*`, `+`, `{n,}`.
 */
function repeatAt(pattern: string, i: number): { many: boolean; varies: boolean; unbounded: boolean; end: number } | undefined {
  const char = pattern[i];
  let end = i;
  let least: number;
  let most: number;
  if (char === '*' || char === '+' || char === '?') {
    least = char === '+' ? 1 : 0;
    most = char === '?' ? 1 : Infinity;
  } else if (char === '{') {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
    if (match === null) return undefined;
    end = i + match[0].length - 1;
    least = Number(match[1]);
    most = match[2] === undefined ? least : match[3] === '' ? Infinity : Number(match[3]);
  } else {
    return undefined;
  }
  if (pattern[end + 1] === '?') end++;
  return { many: most > 1, varies: most !== least, unbounded: most === Infinity, end };
}

const sandbox = createContext(Object.create(null) as object);
const budgeted = new Script('pattern.test(text)');

/** Tests a long string under the time budget; a test that runs out of it does not match. */
function testWithinBudget(pattern: RegExp, text: string): boolean {
  const slots = sandbox as { pattern?: RegExp; text?: string };
  slots.pattern = pattern;
  slots.text = text;
  try {
    return budgeted.runInContext(sandbox, { timeout: BUDGET_MS }) === true;
  } catch {
    return false;
  } finally {
    slots.pattern = undefined;
    slots.text = undefined;
  }
}

/** What ajv runs for a pattern: a RegExp-like whose test is bounded as above. */
export interface BoundedPattern {
  test(text: string): boolean;
  toString(): string;
}

/**
 * ajv's `code.regExp`: called when a schema is compiled, so a risky pattern refuses the schema (ajv reports the
 * throw with the schema it was compiling).
 */
export function boundedPattern(pattern: string, flags: string): BoundedPattern {
  const risk = riskyPattern(pattern);
  if (risk !== undefined) throw new Error(`the pattern ${JSON.stringify(pattern)} ${risk}`);
  const regExp = new RegExp(pattern, flags);
  return {
    test: (text) => (text.length <= DIRECT_LENGTH ? regExp.test(text) : testWithinBudget(regExp, text)),
    toString: () => regExp.toString(),
  };
}
boundedPattern.code = 'workflow-webhooks bounded pattern';
