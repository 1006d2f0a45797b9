/**
 * Defaults: present, of the shape the element type needs, and, for options, one of the values.
 * Real nodes use `''` for "nothing chosen" and for number fields without a value yet: both are allowed.
 */
import { describeValue } from '../findings.js';
import { isExpression, isObject, quoteList, typeOptionsOf, type PropertyRule } from './context.js';

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
  options: { test: (v) => ['string', 'number', 'boolean'].includes(typeof v), expected: 'a string, number or boolean' },
};

export const checkDefault: PropertyRule = (definition, at, { findings }) => {
  const { type } = definition;
  if (!('default' in definition) || typeof type !== 'string') return;
  const value = definition.default;
  if (isExpression(value)) return;
  if (type === 'string') {
    const multiple = typeOptionsOf(definition).multipleValues === true;
    if (typeof value !== 'string' && !(multiple && Array.isArray(value))) {
      findings.error('default-wrong-shape', at, `default ${describeValue(value)} must be a string`, ['default']);
    }
    return;
  }
  if (type === 'fixedCollection') {
    // The spec allows "empty string or equivalent"; real nodes also use []. An object is what the editor stores.
    if (value === '' || (Array.isArray(value) && value.length === 0)) {
      findings.warning('default-not-object', at, `default ${describeValue(value)} works, but {} is what the editor stores`, ['default']);
    } else if (!isObject(value)) {
      findings.error('default-wrong-shape', at, `default ${describeValue(value)} must be an object ({})`, ['default']);
    }
    return;
  }
  const shape = shapeOf[type];
  if (shape !== undefined && !shape.test(value)) {
    findings.error('default-wrong-shape', at, `default ${describeValue(value)} must be ${shape.expected}`, ['default']);
    return;
  }
  if (type === 'collection' && isObject(value) && Object.keys(value).length > 0) {
    findings.warning('collection-default-not-empty', at, 'default of a collection should be {}: its fields are added by the user', ['default']);
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
    if (value === '' || isExpression(value) || !['string', 'number', 'boolean'].includes(typeof value)) return;
    if (!values.includes(value)) {
      findings.error('default-not-an-option', at, `default ${describeValue(value)} is not one of the option values ${quoteList(values)}`, ['default']);
    }
  } else if (type === 'multiOptions' && Array.isArray(value)) {
    value.forEach((entry, index) => {
      if (!isExpression(entry) && !values.includes(entry)) {
        findings.error('default-not-an-option', at, `default entry ${describeValue(entry)} is not one of the option values ${quoteList(values)}`, ['default', index]);
      }
    });
  }
};

export const checkNumberDefaultRange: PropertyRule = (definition, at, { findings }) => {
  if (definition.type !== 'number' || typeof definition.default !== 'number') return;
  const { minValue, maxValue } = typeOptionsOf(definition);
  const value = definition.default;
  if (typeof minValue === 'number' && value < minValue) {
    findings.warning('default-out-of-range', at, `default ${value} is below minValue ${minValue}`, ['default']);
  }
  if (typeof maxValue === 'number' && value > maxValue) {
    findings.warning('default-out-of-range', at, `default ${value} is above maxValue ${maxValue}`, ['default']);
  }
};
