/** options and multiOptions: a static list or a load method, entries `{ name, value }`, the method known. */
import { isObject, typeOptionsOf, type PropertyRule } from './context.js';

export const checkOptionsSource: PropertyRule = (definition, at, { findings, methods }) => {
  if (definition.type !== 'options' && definition.type !== 'multiOptions') return;
  const typeOptions = typeOptionsOf(definition);
  const method = typeOptions.loadOptionsMethod;
  const loads = typeof method === 'string' || isObject(typeOptions.loadOptions);
  if (!Array.isArray(definition.options) && !loads) {
    findings.error('options-missing', at, 'has no options list and no load method (typeOptions.loadOptionsMethod): the user has nothing to choose from', ['options']);
  }
  if (typeof method === 'string' && methods?.loadOptions !== undefined && !methods.loadOptions.has(method)) {
    findings.error('unknown-method', at, `typeOptions.loadOptionsMethod '${method}' is not a method in the node's methods.loadOptions`, ['typeOptions', 'loadOptionsMethod']);
  }
  if (Array.isArray(definition.options) && definition.options.length === 0 && !loads) {
    findings.error('options-missing', at, 'has an empty options list and no load method', ['options']);
  }
};

/** Two entries with one value cannot be told apart once stored. */
export const checkOptionValuesUnique: PropertyRule = (definition, at, { findings }) => {
  if ((definition.type !== 'options' && definition.type !== 'multiOptions') || !Array.isArray(definition.options)) return;
  const seen = new Map<unknown, number>();
  definition.options.forEach((entry, index) => {
    if (!isObject(entry) || !('value' in entry)) return;
    const first = seen.get(entry.value);
    if (first === undefined) seen.set(entry.value, index);
    else findings.warning('option-value-duplicate', at, `options ${first} and ${index} share the value ${JSON.stringify(entry.value)}`, ['options', index, 'value']);
  });
};
