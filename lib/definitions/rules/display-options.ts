/**
 * displayOptions (and disabledOptions): every key's value is an array of plain values or `{ _cnd: { op: value } }`
 * with exactly one known operator, and the values of `resource` and `operation` (which are option values of those
 * parameters) are strings. Also evaluates a condition on a concrete value, for the sibling rule.
 */
import { CONDITION_OPERATORS } from '../types.js';
import { isObject, type PropertyRule } from './context.js';
import type { Findings, Location } from '../findings.js';

const OPERATORS = new Set<string>(CONDITION_OPERATORS);
/** Keys whose values are a `resource` or `operation` parameter's option values, always strings. */
const STRING_KEYS = new Set(['resource', 'operation', '/resource', '/operation']);

function checkRules(rules: unknown, at: Location, findings: Findings, where: string[]): void {
  if (rules === undefined) return;
  if (!isObject(rules)) {
    findings.report('display-options-invalid', at, `${where.join('.')} must be an object of key → array of values`, where);
    return;
  }
  for (const [key, values] of Object.entries(rules)) {
    if (!Array.isArray(values)) {
      findings.report('display-options-invalid', at, `${where.join('.')}.${key} must be an array of values (got ${typeof values})`, [...where, key]);
      continue;
    }
    values.forEach((entry, index) => {
      if (!isObject(entry)) {
        if (typeof entry !== 'string' && STRING_KEYS.has(key) && where[0] === 'displayOptions') {
          findings.report('display-value-not-string', at, `${where.join('.')}.${key}[${index}] is ${JSON.stringify(entry) ?? typeof entry}, but ${key.replace('/', '')} values are strings (the parameter's option values): it never matches`, [...where, key, index]);
        }
        return;
      }
      const condition = entry._cnd;
      const operators = isObject(condition) ? Object.keys(condition) : [];
      if (!isObject(condition) || Object.keys(entry).length !== 1 || operators.length !== 1) {
        findings.report('invalid-condition', at, `${where.join('.')}.${key}[${index}] must be a plain value or { _cnd: { <operator>: value } } with one operator`, [...where, key, index]);
        return;
      }
      const operator = operators[0] as string;
      if (!OPERATORS.has(operator)) {
        findings.report('unknown-condition-operator', at, `${where.join('.')}.${key}[${index}] uses the unknown operator '${operator}'; use one of ${CONDITION_OPERATORS.join(', ')}`, [...where, key, index, '_cnd', operator]);
      } else if (operator === 'between' && !(isObject(condition.between) && 'from' in condition.between && 'to' in condition.between)) {
        findings.report('invalid-condition', at, `${where.join('.')}.${key}[${index}] between needs { from, to }`, [...where, key, index, '_cnd', 'between']);
      }
    });
  }
}

export const checkDisplayOptions: PropertyRule = (definition, at, { findings }) => {
  for (const field of ['displayOptions', 'disabledOptions'] as const) {
    const options = definition[field];
    if (options === undefined) continue;
    if (!isObject(options)) {
      findings.report('display-options-invalid', at, `${field} must be an object with show and/or hide`, [field]);
      continue;
    }
    checkRules(options.show, at, findings, [field, 'show']);
    checkRules(options.hide, at, findings, [field, 'hide']);
  }
};

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function compare(value: unknown, operand: unknown, test: (a: number | string, b: number | string) => boolean): boolean | undefined {
  if ((typeof value === 'number' && typeof operand === 'number') || (typeof value === 'string' && typeof operand === 'string')) return test(value, operand);
  return undefined;
}

/** Whether `{ _cnd }` holds for a value; undefined when it cannot be told without running author code. */
export function conditionHolds(condition: Record<string, unknown>, value: unknown): boolean | undefined {
  const [operator, operand] = Object.entries(condition)[0] ?? [];
  switch (operator) {
    case 'eq': return sameValue(value, operand);
    case 'not': return !sameValue(value, operand);
    case 'gte': return compare(value, operand, (a, b) => a >= b);
    case 'gt': return compare(value, operand, (a, b) => a > b);
    case 'lte': return compare(value, operand, (a, b) => a <= b);
    case 'lt': return compare(value, operand, (a, b) => a < b);
    case 'between': {
      if (!isObject(operand)) return undefined;
      const low = compare(value, operand.from, (a, b) => a >= b);
      const high = compare(value, operand.to, (a, b) => a <= b);
      return low === undefined || high === undefined ? undefined : low && high;
    }
    case 'startsWith': return typeof value === 'string' && typeof operand === 'string' ? value.startsWith(operand) : undefined;
    case 'endsWith': return typeof value === 'string' && typeof operand === 'string' ? value.endsWith(operand) : undefined;
    case 'includes': return typeof value === 'string' && typeof operand === 'string' ? value.includes(operand) : undefined;
    case 'exists': return value !== undefined && value !== null && value !== '';
    default: return undefined;
  }
}

/** Whether an entry list of a show/hide key matches a concrete value; undefined when unknown. */
export function listMatches(entries: readonly unknown[], value: unknown): boolean | undefined {
  let unknown = false;
  for (const entry of entries) {
    if (isObject(entry) && isObject(entry._cnd)) {
      const holds = conditionHolds(entry._cnd, value);
      if (holds === true) return true;
      if (holds === undefined) unknown = true;
    } else if (sameValue(entry, value)) {
      return true;
    }
  }
  return unknown ? undefined : false;
}
