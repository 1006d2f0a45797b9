/**
 * The keywords this library gives ajv in place of its own: `enum`, `const` and `uniqueItems` compare values by a
 * canonical text, in time linear in the data (ajv's compare every pair: `uniqueItems` on 20 000 objects took 6.4 s,
 * and a body key named `valueOf` made them throw), and a hidden cost keyword that every subschema of a compiled copy
 * carries, which charges the call's budget each time the subschema applies to a value.
 */
import type { Ajv as AjvInstance } from 'ajv';
import { charge } from './budget.js';

/** The cost keyword's name; a schema's own keyword of that name is dropped from the compiled copy. */
export const COST_KEYWORD = 'workflowWebhooksCost';

/** A subschema's cost when it applies: units for applying it, and units per 32 characters of a string it reads. */
export type Cost = readonly [units: number, perString: number];

/** Characters of a string counted as one unit where only their length is read or compared. */
const CHARACTERS_PER_UNIT = 32;
/** Units per value or key written into a canonical text: building and sorting it costs about 20 cheap steps. */
const UNITS_PER_VALUE = 20;

/**
 * A JSON value's canonical text: equal JSON values (keys in any order, 1 and 1.0) have equal texts. Only own
 * enumerable keys and `typeof` are read: a body's own `valueOf` or `toString` is data like any other key.
 */
export function canonicalText(value: unknown): string {
  let units = 0;
  const text = (item: unknown): string => {
    units += UNITS_PER_VALUE;
    if (typeof item === 'string') {
      units += item.length / CHARACTERS_PER_UNIT;
      return JSON.stringify(item);
    }
    if (typeof item === 'number') return Number.isFinite(item) ? String(item) : 'null';
    if (typeof item === 'boolean') return item ? 'true' : 'false';
    if (item === null || typeof item !== 'object') return 'null';
    if (Array.isArray(item)) return `[${item.map(text).join(',')}]`;
    const keys = Object.keys(item).sort();
    units += keys.length * UNITS_PER_VALUE;
    return `{${keys.map((key) => `${JSON.stringify(key)}:${text((item as Record<string, unknown>)[key])}`).join(',')}}`;
  };
  try {
    return text(value);
  } finally {
    charge(Math.ceil(units));
  }
}

/** Whether a value has no children: compared without its canonical text. */
function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Gives `ajv` the cost keyword and its own `enum`, `const` and `uniqueItems`. */
export function addLinearKeywords(ajv: AjvInstance): void {
  ajv.addKeyword({
    keyword: COST_KEYWORD,
    schemaType: 'array',
    errors: false,
    validate: (cost: Cost, data: unknown) => {
      charge(cost[0] + (typeof data === 'string' && cost[1] > 0 ? Math.ceil((data.length * cost[1]) / CHARACTERS_PER_UNIT) : 0));
      return true;
    },
  });
  for (const keyword of ['enum', 'const', 'uniqueItems']) ajv.removeKeyword(keyword);
  ajv.addKeyword({
    keyword: 'enum',
    schemaType: 'array',
    error: { message: 'must be equal to one of the allowed values' },
    compile: (values: unknown[]) => {
      const scalars = new Set(values.filter(isScalar));
      const texts = new Set(values.filter((value) => !isScalar(value)).map(canonicalText));
      return (data: unknown) => (isScalar(data) ? scalars.has(data) : texts.size > 0 && texts.has(canonicalText(data)));
    },
  });
  ajv.addKeyword({
    keyword: 'const',
    error: { message: 'must be equal to constant' },
    compile: (expected: unknown) => {
      if (isScalar(expected)) return (data: unknown) => data === expected;
      const text = canonicalText(expected);
      return (data: unknown) => !isScalar(data) && canonicalText(data) === text;
    },
  });
  ajv.addKeyword({
    keyword: 'uniqueItems',
    type: 'array',
    schemaType: 'boolean',
    error: { message: 'must NOT have duplicate items' },
    compile: (unique: boolean) => (data: unknown[]) => {
      if (!unique) return true;
      const scalars = new Set<unknown>();
      const texts = new Set<string>();
      for (const item of data) {
        if (isScalar(item)) {
          if (scalars.has(item)) return false;
          scalars.add(item);
          continue;
        }
        const text = canonicalText(item);
        if (texts.has(text)) return false;
        texts.add(text);
      }
      return true;
    },
  });
}
