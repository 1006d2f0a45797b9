/**
 * Whether a parameter is shown for the values entered (displayOptions): every `show` key must match one
 * of its entries, no `hide` key may match. Keys name sibling parameters, `/name` root parameters, `@version` the
 * node version. An expression value shows the parameter (it is only known at run time), as the platform does.
 */
import { isObject } from '../rules/context.js';
import { listMatches } from '../rules/display-options.js';

export interface DisplayContext {
  /** The parameters at the definition's own level. */
  siblings: Readonly<Record<string, unknown>>;
  /** The node's top-level parameters (for `/name` keys). */
  root: Readonly<Record<string, unknown>>;
  /** The node's version, for `@version`. */
  version?: number;
}

function lookUp(key: string, context: DisplayContext): unknown {
  if (key === '@version') return context.version;
  const [source, path] = key.startsWith('/') ? [context.root, key.slice(1)] : [context.siblings, key];
  let value: unknown = source;
  for (const part of path.split('.')) value = isObject(value) && Object.hasOwn(value, part) ? value[part] : undefined;
  // A resource locator is compared by its value.
  return isObject(value) && value.__rl === true ? value.value : value;
}

function matches(entries: unknown, value: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (typeof value === 'string' && value.startsWith('=')) return true;
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0) return listMatches(entries, undefined) === true;
  return values.some((one) => listMatches(entries, one) === true);
}

export function isShown(definition: Record<string, unknown>, context: DisplayContext): boolean {
  const options = definition.displayOptions;
  if (!isObject(options)) return true;
  const { show, hide } = options;
  if (isObject(show) && !Object.entries(show).every(([key, entries]) => matches(entries, lookUp(key, context)))) return false;
  if (isObject(hide)) {
    for (const [key, entries] of Object.entries(hide)) {
      if (Array.isArray(entries) && entries.length > 0 && matches(entries, lookUp(key, context)) && !String(lookUp(key, context)).startsWith('=')) return false;
    }
  }
  return true;
}
