/**
 * `show.resource` and `show.operation` values must name an option of the node's resource or operation parameter:
 * a value that names none never matches, so a typo hides a field for good (for every value when all are such).
 * A warning, since the definition itself renders fine. Only static option lists are known; a parameter that loads
 * its options, or a node without such a parameter, is not judged.
 */
import { isObject, isTopLevel, quoteList, type PropertyRule } from './context.js';

type Definition = Record<string, unknown>;
const PARAMETERS = ['resource', 'operation'] as const;

/** The top-level definitions of one name, or undefined when one of them has no static option list. */
function parametersNamed(root: readonly unknown[], name: string): Definition[] | undefined {
  const found = root.filter((definition): definition is Definition => isObject(definition) && definition.name === name);
  if (found.length === 0) return undefined;
  const static_ = found.every((definition) => (definition.type === 'options' || definition.type === 'multiOptions') && Array.isArray(definition.options)
    && !(isObject(definition.typeOptions) && (definition.typeOptions.loadOptionsMethod !== undefined || definition.typeOptions.loadOptions !== undefined)));
  return static_ ? found : undefined;
}

function plainShown(definition: Definition, key: string): unknown[] {
  const show = isObject(definition.displayOptions) && isObject(definition.displayOptions.show) ? definition.displayOptions.show : {};
  const list = show[key] ?? show[`/${key}`];
  return Array.isArray(list) ? list : [];
}

/** The option values a definition shown for these resources can meet: its own operation parameters' values. */
function knownValues(parameters: Definition[], resources: unknown[]): Set<unknown> {
  const values = new Set<unknown>();
  for (const parameter of parameters) {
    const forResources = plainShown(parameter, 'resource');
    if (resources.length > 0 && forResources.length > 0 && !forResources.some((value) => resources.includes(value))) continue;
    for (const entry of parameter.options as unknown[]) if (isObject(entry)) values.add(entry.value);
  }
  return values;
}

/** Per description: the parameters by name, and the known values by parameter and resources. */
const cache = new WeakMap<readonly unknown[], Map<string, Definition[] | undefined | Set<unknown>>>();

function cached<T extends Definition[] | undefined | Set<unknown>>(root: readonly unknown[], key: string, make: () => T): T {
  let entries = cache.get(root);
  if (entries === undefined) cache.set(root, (entries = new Map()));
  if (!entries.has(key)) entries.set(key, make());
  return entries.get(key) as T;
}

export const checkDisplayValues: PropertyRule = (definition, at, { findings, root }) => {
  const show = isObject(definition.displayOptions) ? definition.displayOptions.show : undefined;
  if (!isObject(show)) return;
  const topLevel = isTopLevel(at.pointer);
  for (const name of PARAMETERS) {
    // At the top level both `operation` and `/operation` read the node's parameter; below it only `/operation` does.
    const key = topLevel && Array.isArray(show[name]) ? name : Array.isArray(show[`/${name}`]) ? `/${name}` : undefined;
    if (key === undefined || (topLevel && definition.name === name)) continue;
    const parameters = cached(root, name, () => parametersNamed(root, name));
    if (parameters === undefined) continue;
    const resources = name === 'operation' ? plainShown(definition, 'resource').filter((value) => typeof value !== 'object') : [];
    const known = cached(root, `${name}\u0000${resources.map(String).join('\u0000')}`, () => knownValues(parameters, resources));
    const entries = show[key] as unknown[];
    const unknown = entries.map((value, index) => ({ value, index }))
      // Values that are not strings get a finding of their own (display-value-not-string).
      .filter(({ value }) => typeof value === 'string' && !value.startsWith('=') && !known.has(value));
    const never = unknown.length === entries.length;
    for (const { value, index } of unknown) {
      findings.report('display-value-unknown', at, `displayOptions.show.${key} value ${JSON.stringify(value)} names no option of '${name}' (${quoteList([...known])})${never ? ': the field is never shown' : ': it never matches'}`, ['displayOptions', 'show', key, index]);
    }
  }
};
