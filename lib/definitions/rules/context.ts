/** What every rule gets: the findings, the node's method names and versions, and the helpers to read untrusted input. */
import type { Findings, Location } from '../findings.js';

export interface MethodNames {
  loadOptions?: ReadonlySet<string>;
  listSearch?: ReadonlySet<string>;
  resourceMapping?: ReadonlySet<string>;
  localResourceMapping?: ReadonlySet<string>;
}

export interface RuleContext {
  findings: Findings;
  /** Present only when the node's methods are known: then names are checked against them. */
  methods: MethodNames | undefined;
  /** The node versions the description serves, for `@version` conditions; undefined when not known. */
  versions: readonly number[] | undefined;
  /** The top-level definitions, for rules that read the resource and operation parameters. */
  root: readonly unknown[];
}

/** A rule looks at one definition; it must never throw, whatever the input. */
export type PropertyRule = (definition: Record<string, unknown>, at: Location, context: RuleContext) => void;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeOptionsOf(definition: Record<string, unknown>): Record<string, unknown> {
  return isObject(definition.typeOptions) ? definition.typeOptions : {};
}

export function isExpression(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('=');
}

/** A top-level definition (not one inside a collection or a fixedCollection group). */
export function isTopLevel(pointer: string): boolean {
  return /^\/properties\/\d+$/.test(pointer);
}

export function quoteList(values: readonly unknown[], max = 8): string {
  const shown = values.slice(0, max).map((value) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value)));
  return values.length > max ? `${shown.join(', ')}, … (${values.length} in all)` : shown.join(', ');
}
