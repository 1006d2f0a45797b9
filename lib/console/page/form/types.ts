/**
 * The contracts inside the form renderer: a control renders one element type, a field wraps it with its label,
 * hint, description and issues, and a list holds the fields of one level (the node's parameters, a collection's
 * options, a fixedCollection group). Controls create nested lists through their context, never by import, so the
 * modules form no cycle.
 */

/** A property definition as the page receives it: JSON, checked by the library's functions, never trusted. */
export type Definition = Record<string, unknown>;

/** A node method the page can call (the preview's example node has them; the Webhook node has none). */
export interface NodeMethods {
  listSearch(method: string, filter: string): Promise<{ results: SearchResult[] } | { error: string }>;
  resourceMapping(method: string, parameters: Record<string, unknown>): Promise<unknown>;
}

export interface SearchResult {
  name: string;
  value: string | number;
  url?: string;
}

/** What every field of one form shares. */
export interface FormHost {
  /** The node's top-level values, for `/name` display keys, expressions and validation. */
  rootValues(): Record<string, unknown>;
  /** A value changed: the form shows and hides what depends on it. */
  changed(): void;
  methods?: NodeMethods;
  version?: number;
  /** Remembers a field by the JSON pointer of its definition, so that a lint finding can focus it. */
  register(pointer: string, field: FieldHandle): void;
}

export interface FieldHandle {
  readonly element: HTMLElement;
  focus(): void;
}

/** How a collection uses a list: only the options the user added count, and each gets a remove button. */
export interface ListChoices {
  include(name: string): boolean;
  decorate(element: HTMLElement, name: string, label: string): void;
}

/** The fields of one level. */
export interface NestedList {
  readonly element: HTMLElement;
  values(): Record<string, unknown>;
  /** Each field's name and label, and whether its show rules hold for the values entered. */
  entries(): { name: string; label: string; allowed: boolean }[];
  refresh(): void;
  /** Checks every shown field, showing the issues; answers how many there are. */
  validateAll(): number;
  focusFirst(): void;
  focusField(name: string): void;
  /** How many of its fields are on the page. */
  shownCount(): number;
}

export interface ControlContext {
  host: FormHost;
  /** The id the field's label points to. */
  id: string;
  /** JSON pointer of the definition in the node description, e.g. `/properties/4`. */
  pointer: string;
  /** JSON pointer of the value in the node's parameters, e.g. `/options/rawBody`. */
  valuePath: string;
  /** The user changed the value: check it and re-evaluate the form. */
  input(): void;
  /** The fields of a nested level. */
  nestedList(definitions: unknown, values: Record<string, unknown>, at: { pointerBase: string; valueBase: string }, choices?: ListChoices): NestedList;
}

export interface Control {
  /** The control itself, without the field's label and texts. */
  element: HTMLElement;
  /** What the label points to and a finding focuses. */
  focusTarget: HTMLElement;
  /** False when the control names itself (a fieldset with a legend): the field then has no <label>. */
  labelled: boolean;
  read(): unknown;
  /** Nested fields re-evaluate what they show. */
  refresh?(): void;
  /** Nested fields check themselves; answers how many issues they show. */
  validateAll?(): number;
  /** True when nested fields show their own issues, so the field shows only those at its own path. */
  nested?: boolean;
  /** Issues the library's validator cannot see (a number input holding text the browser could not read). */
  ownIssues?(): string[];
}

export type ControlFactory = (definition: Definition, initial: unknown, context: ControlContext) => Control;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeOptions(definition: Definition): Record<string, unknown> {
  return isRecord(definition.typeOptions) ? definition.typeOptions : {};
}

export function labelOf(definition: Definition): string {
  return typeof definition.displayName === 'string' ? definition.displayName : String(definition.name ?? '');
}

/** The definitions of a level, each with its index (its place in the pointer). */
export function definitionsOf(list: unknown): { definition: Definition; index: number }[] {
  return Array.isArray(list)
    ? list.flatMap((definition, index) => (isRecord(definition) && typeof definition.name === 'string' ? [{ definition, index }] : []))
    : [];
}
