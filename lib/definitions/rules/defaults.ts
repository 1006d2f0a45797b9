/**
 * Defaults: of the shape the element type needs, and, for options, one of the values. Real nodes use `''` for
 * "nothing chosen" and for number fields without a value yet: both are allowed. Shapes the platform reads as
 * "nothing" are warnings; a default that names no option, or that slips past the required check, is an error.
 */
import { describeValue, type Findings, type Location } from '../findings.js';
import { isExpression, isObject, quoteList, typeOptionsOf, type PropertyRule } from './context.js';

const SCALAR = new Set(['string', 'number', 'boolean']);

const shapeOf: Record<string, { test: (value: unknown) => boolean; expected: string }> = {
  boolean: { test: (v) => typeof v === 'boolean', expected: 'a boolean' },
  collection: { test: isObject, expected: 'an object ({})' },
  multiOptions: { test: Array.isArray, expected: 'an array' },
  number: { test: (v) => (typeof v === 'number' && Number.isFinite(v)) || v === '' || v === null, expected: "a number ('' or null for no value)" },
  filter: { test: isObject, expected: 'an object ({})' },
  assignmentCollection: { test: isObject, expected: 'an object ({})' },
  resourceMapper: { test: isObject, expected: 'an object { mappingMode, value: null }' },
  resourceLocator: { test: (v) => v === '' || (isObject(v) && typeof v.mode === 'string'), expected: "{ mode, value } (or '')" },
  dateTime: { test: (v) => typeof v === 'string' || v === null, expected: "a string ('' for none)" },
  color: { test: (v) => typeof v === 'string', expected: 'a string' },
  json: { test: (v) => typeof v === 'string', expected: 'a string' },
  notice: { test: (v) => typeof v === 'string', expected: "a string ('')" },
  options: { test: (v) => SCALAR.has(typeof v), expected: 'a string, number or boolean' },
};

/**
 * Defaults the platform tolerates: it reads them as "nothing" and renders and runs the field as intended. Each
 * has its own warning code; `strict` makes them errors.
 */
function checkToleratedDefault(definition: Record<string, unknown>, at: Location, findings: Findings): boolean {
  const { type, default: value } = definition;
  if (type === 'number' && (value === undefined || value === false)) {
    findings.report('number-default-not-number', at, `default ${describeValue(value)} works as "no value", but a number field's default is a number (or null for no value)`, ['default']);
    return true;
  }
  if ((type === 'boolean' || type === 'dateTime') && value === 0) {
    findings.report('default-zero', at, `default 0 works as ${type === 'boolean' ? 'false' : 'no date'}, but a ${type} field's default is ${type === 'boolean' ? 'true or false' : "a date string ('' for none)"}`, ['default']);
    return true;
  }
  if (type === 'options' && (Array.isArray(value) || isObject(value))) {
    if (definition.required === true) {
      findings.report('required-check-defeated', at, `default ${describeValue(value)} is no option, and not empty to the required check: the node runs with ${describeValue(value)} when the user picks nothing; use '' (nothing chosen)`, ['default']);
    } else {
      findings.report('options-default-container', at, `default ${describeValue(value)} works as "nothing chosen", but an options field holds one value: use ''`, ['default']);
    }
    return true;
  }
  if (type === 'fixedCollection' && (value === '' || Array.isArray(value))) {
    // The spec allows "empty string or equivalent"; real nodes also use []. An object is what the editor stores; it
    // reads the groups of a list by name, so a list's entries are not shown, but the field works.
    const entries = Array.isArray(value) && value.length > 0 ? ': the editor reads groups by name, so these entries are not shown; write { <group name>: [...] }' : '';
    findings.report('default-not-object', at, `default ${describeValue(value)} works, but {} is what the editor stores${entries}`, ['default']);
    return true;
  }
  if (type === 'notice' && typeof value === 'string' && value !== '') {
    findings.report('notice-default-not-empty', at, "a notice shows its displayName and holds no value: its default is '', this text is never shown", ['default']);
    return true;
  }
  return false;
}

export const checkDefault: PropertyRule = (definition, at, { findings }) => {
  const { type } = definition;
  // A missing default is the schema's finding, except on a number field (tolerated above, as undefined).
  if (typeof type !== 'string' || (!('default' in definition) && type !== 'number')) return;
  const value = definition.default;
  if (isExpression(value) || checkToleratedDefault(definition, at, findings)) return;
  if (type === 'string') {
    const multiple = typeOptionsOf(definition).multipleValues === true;
    if (typeof value !== 'string' && !(multiple && Array.isArray(value))) {
      findings.report('default-wrong-shape', at, `default ${describeValue(value)} must be a string`, ['default']);
    }
    return;
  }
  if (type === 'fixedCollection') {
    if (!isObject(value)) findings.report('default-wrong-shape', at, `default ${describeValue(value)} must be an object ({})`, ['default']);
    return;
  }
  const shape = shapeOf[type];
  if (shape !== undefined && !shape.test(value)) {
    findings.report('default-wrong-shape', at, `default ${describeValue(value)} must be ${shape.expected}`, ['default']);
    return;
  }
  if (type === 'collection' && isObject(value) && Object.keys(value).length > 0) {
    findings.report('collection-default-not-empty', at, 'default of a collection should be {}: its fields are added by the user', ['default']);
  }
};

function optionValues(definition: Record<string, unknown>): unknown[] | undefined {
  if (!Array.isArray(definition.options)) return undefined;
  return definition.options.filter(isObject).map((entry) => entry.value);
}

/** An options default must be one of the values (or '' for nothing chosen); a multiOptions default, all of them. */
export const checkOptionsDefault: PropertyRule = (definition, at, { findings }) => {
  const values = optionValues(definition);
  if (values === undefined || values.length === 0) return;
  const { type, default: value } = definition;
  if (type === 'options') {
    if (value === '' || isExpression(value) || !SCALAR.has(typeof value)) return;
    if (!values.includes(value)) {
      findings.report('default-not-an-option', at, `default ${describeValue(value)} is not one of the option values ${quoteList(values)}`, ['default']);
    }
  } else if (type === 'multiOptions' && Array.isArray(value)) {
    value.forEach((entry, index) => {
      if (!isExpression(entry) && !values.includes(entry)) {
        findings.report('default-not-an-option', at, `default entry ${describeValue(entry)} is not one of the option values ${quoteList(values)}`, ['default', index]);
      }
    });
  }
};

export const checkNumberDefaultRange: PropertyRule = (definition, at, { findings }) => {
  if (definition.type !== 'number' || typeof definition.default !== 'number') return;
  const { minValue, maxValue } = typeOptionsOf(definition);
  const value = definition.default;
  if (typeof minValue === 'number' && value < minValue) {
    findings.report('default-out-of-range', at, `default ${value} is below minValue ${minValue}`, ['default']);
  }
  if (typeof maxValue === 'number' && value > maxValue) {
    findings.report('default-out-of-range', at, `default ${value} is above maxValue ${maxValue}`, ['default']);
  }
};
