/**
 * When two definitions (or two option entries) are shown together, judged from their displayOptions alone.
 * Each definition is shown for a set of states, key by key; a key's values are those the two conditions mention,
 * numbers between them, one value that neither mentions, and, for `@version`, the versions the node serves. Two
 * are certainly shown together when one's set lies inside the other's (whenever the narrower one shows, so does
 * the wider), or when their conditions differ in one key only and a real value of it shows both; they may be when
 * the sets only meet, because the keys of real nodes depend on each other (a field that exists only for some values
 * of another), which displayOptions do not say.
 */
import { isObject } from './context.js';
import { listMatches } from './display-options.js';

type Rules = Record<string, unknown[]>;
/** A definition's rules, and the show keys whose values are all plain, as sets (for the quick test). */
interface Shown { show: Rules; hide: Rules; plain: Map<string, Set<unknown>> }

/** How two definitions relate: `certain` both shown at once, `possible` maybe, `never` not together. */
export type Together = 'certain' | 'possible' | 'never';

export interface DisplayScope {
  /** The node versions the description serves; `@version` is then judged on them alone. */
  versions?: readonly number[] | undefined;
  /** At the top level, `/operation` and `operation` read the same parameter. */
  topLevel: boolean;
}

/** A value that no condition mentions: it matches only `not` and `exists` conditions. */
const OTHER = Symbol('unmentioned');

function rulesOf(definition: Record<string, unknown>, kind: 'show' | 'hide', topLevel: boolean): Rules {
  const options = definition.displayOptions;
  const rules = isObject(options) ? options[kind] : undefined;
  if (!isObject(rules)) return {};
  const result: Rules = {};
  for (const [key, values] of Object.entries(rules)) {
    if (!Array.isArray(values)) continue;
    result[topLevel && key.startsWith('/') ? key.slice(1) : key] = values;
  }
  return result;
}

function matches(entries: readonly unknown[], value: unknown): boolean | undefined {
  if (value !== OTHER) return listMatches(entries, value);
  return entries.some((entry) => isObject(entry) && isObject(entry._cnd) && ('not' in entry._cnd || 'exists' in entry._cnd));
}

/** Whether a value of `key` lets the definition show: every show key matches, no hide key does. */
function accepts(shown: Shown, key: string, value: unknown): boolean | undefined {
  const show = shown.show[key];
  let result = show === undefined ? true : matches(show, value);
  const hide = shown.hide[key];
  // An empty hide list never hides.
  if (hide !== undefined && hide.length > 0) {
    const hidden = matches(hide, value);
    if (hidden === true) return false;
    if (hidden === undefined && result === true) result = undefined;
  }
  return result;
}

function operandsOf(lists: (unknown[] | undefined)[]): unknown[] {
  const values: unknown[] = [];
  for (const entry of lists.flatMap((list) => list ?? [])) {
    if (!isObject(entry) || !isObject(entry._cnd)) values.push(entry);
    else for (const operand of Object.values(entry._cnd)) values.push(...(isObject(operand) ? [operand.from, operand.to] : [operand]));
  }
  return values;
}

/** The values of `key` worth trying: every mentioned one, numbers around and between them, and one unmentioned. */
function domainOf(key: string, a: Shown, b: Shown, scope: DisplayScope): unknown[] {
  if (key === '@version' && scope.versions !== undefined && scope.versions.length > 0) return [...scope.versions];
  const mentioned = operandsOf([a.show[key], a.hide[key], b.show[key], b.hide[key]]);
  const numbers = [...new Set(mentioned.filter((value): value is number => typeof value === 'number' && Number.isFinite(value)))].sort((x, y) => x - y);
  const between = numbers.slice(1).map((value, index) => ((numbers[index] as number) + value) / 2);
  const around = numbers.length === 0 ? [] : [(numbers[0] as number) - 1, (numbers[numbers.length - 1] as number) + 1];
  return [...new Set([...mentioned, ...between, ...around]), OTHER];
}

function sameRules(a: Shown, b: Shown, key: string): boolean {
  try {
    return JSON.stringify([a.show[key], a.hide[key]]) === JSON.stringify([b.show[key], b.hide[key]]);
  } catch {
    return false;
  }
}

const shownCache = { top: new WeakMap<object, Shown>(), nested: new WeakMap<object, Shown>() };

function shownOf(definition: Record<string, unknown>, topLevel: boolean): Shown {
  const options = definition.displayOptions;
  // Cached by the displayOptions object, which JS descriptions share between definitions; a key's meaning depends
  // on the level only.
  const cache = topLevel ? shownCache.top : shownCache.nested;
  const cached = isObject(options) ? cache.get(options) : undefined;
  if (cached !== undefined) return cached;
  const show = rulesOf(definition, 'show', topLevel);
  const plain = new Map<string, Set<unknown>>();
  for (const [key, list] of Object.entries(show)) if (list.every((entry) => !isObject(entry))) plain.set(key, new Set(list));
  const shown = { show, hide: rulesOf(definition, 'hide', topLevel), plain };
  if (isObject(options)) cache.set(options, shown);
  return shown;
}

/** The common case, decided at once: a key both show for plain values only, with none in common. */
function plainlyApart(a: Shown, b: Shown): boolean {
  for (const [key, valuesA] of a.plain) {
    const valuesB = b.plain.get(key);
    if (valuesB === undefined) continue;
    let common = false;
    for (const value of valuesA) if (valuesB.has(value)) { common = true; break; }
    if (!common) return true;
  }
  return false;
}

/** Whether two definitions are shown together: certainly, possibly, or never. */
export function shownTogether(first: Record<string, unknown>, second: Record<string, unknown>, scope: DisplayScope): Together {
  const a = shownOf(first, scope.topLevel);
  const b = shownOf(second, scope.topLevel);
  if (plainlyApart(a, b)) return 'never';
  const keys = new Set([...Object.keys(a.show), ...Object.keys(a.hide), ...Object.keys(b.show), ...Object.keys(b.hide)]);
  let aInsideB = true;
  let bInsideA = true;
  let differing = 0;
  let meetSurely = false;
  for (const key of keys) {
    const domain = domainOf(key, a, b, scope);
    const byA = domain.map((value) => accepts(a, key, value));
    const byB = domain.map((value) => accepts(b, key, value));
    // One of them is never shown, or no value shows both.
    if (byA.every((shown) => shown === false) || byB.every((shown) => shown === false)) return 'never';
    if (!byA.some((shown, index) => shown !== false && byB[index] !== false)) return 'never';
    if (sameRules(a, b, key)) continue;
    differing += 1;
    // Inside: wherever one may show, the other surely does.
    aInsideB &&= byA.every((shown, index) => shown === false || byB[index] === true);
    bInsideA &&= byB.every((shown, index) => shown === false || byA[index] === true);
    // A value that surely exists and shows both: a mentioned one (a version only when the versions are known).
    const real = (value: unknown): boolean => value !== OTHER && (key !== '@version' || scope.versions !== undefined);
    meetSurely = domain.some((value, index) => real(value) && byA[index] === true && byB[index] === true);
  }
  // Rules that differ in one key only cannot hide a dependency between keys: meeting on it is showing both.
  return aInsideB || bInsideA || (differing === 1 && meetSurely) ? 'certain' : 'possible';
}

/** The node versions a description serves: the caller's, else its `version`, else its `defaultVersion`. */
export function versionsOf(description: Record<string, unknown>, given?: number | readonly number[]): number[] | undefined {
  const pick = (value: unknown): number[] | undefined => {
    const list = (Array.isArray(value) ? value : [value]).filter((item): item is number => typeof item === 'number' && Number.isFinite(item));
    return list.length > 0 ? list : undefined;
  };
  return pick(given) ?? pick(description.version) ?? pick(description.defaultVersion);
}
