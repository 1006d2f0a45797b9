/** options and multiOptions: a static list or a load method, entries `{ name, value }`, the method known. */
import { isObject, isTopLevel, typeOptionsOf, type PropertyRule } from './context.js';
import { shownTogether } from './display-sets.js';

export const checkOptionsSource: PropertyRule = (definition, at, { findings, methods }) => {
  if (definition.type !== 'options' && definition.type !== 'multiOptions') return;
  const typeOptions = typeOptionsOf(definition);
  const method = typeOptions.loadOptionsMethod;
  const loads = typeof method === 'string' || isObject(typeOptions.loadOptions);
  if (!Array.isArray(definition.options) && !loads) {
    findings.report('options-missing', at, 'has no options list and no load method (typeOptions.loadOptionsMethod): the user has nothing to choose from', ['options']);
  }
  if (typeof method === 'string' && methods?.loadOptions !== undefined && !methods.loadOptions.has(method)) {
    findings.report('unknown-method', at, `typeOptions.loadOptionsMethod '${method}' is not a method in the node's methods.loadOptions`, ['typeOptions', 'loadOptionsMethod']);
  }
  if (Array.isArray(definition.options) && definition.options.length === 0 && !loads) {
    findings.report('options-missing', at, 'has an empty options list and no load method', ['options']);
  }
};

/**
 * Two entries with one value cannot be told apart once stored. Entries that option-level displayOptions keep apart
 * (one per version, say) are fine; differently named entries sharing a value and shown together are an error, since
 * the stored value cannot say which one the user picked; a repeated entry, or one only possibly shown with its
 * twin, is a warning.
 */
export const checkOptionValuesUnique: PropertyRule = (definition, at, { findings, versions }) => {
  const { options } = definition;
  if ((definition.type !== 'options' && definition.type !== 'multiOptions') || !Array.isArray(options)) return;
  // Most lists have no repeated value: find out without building anything per entry.
  const values = new Set<unknown>();
  for (const entry of options) if (isObject(entry)) values.add(entry.value);
  if (values.size === options.length) return;
  const scope = { versions, topLevel: isTopLevel(at.pointer) };
  const byValue = new Map<unknown, number[]>();
  options.forEach((entry, index) => {
    if (!isObject(entry) || !('value' in entry) || typeof entry.value === 'object') return;
    const earlier = byValue.get(entry.value) ?? [];
    byValue.set(entry.value, [...earlier, index]);
    const twins = earlier.map((first) => ({ first, together: shownTogether(options[first] as Record<string, unknown>, entry, scope) }))
      .filter(({ together }) => together !== 'never');
    const ambiguous = twins.find(({ first, together }) => together === 'certain' && (options[first] as Record<string, unknown>).name !== entry.name);
    const shown = `share the value ${JSON.stringify(entry.value)}`;
    if (ambiguous !== undefined) {
      findings.report('option-value-ambiguous', at, `options ${ambiguous.first} and ${index} are named differently, ${shown} and are shown together: the stored value cannot say which one the user picked`, ['options', index, 'value']);
    } else if (twins[0] !== undefined) {
      findings.report('option-value-duplicate', at, `options ${twins[0].first} and ${index} ${shown}; keep one, or keep them apart with displayOptions`, ['options', index, 'value']);
    }
  });
};
