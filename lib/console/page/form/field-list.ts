/**
 * The fields of one level, with displayOptions applied live: after every change each field's show/hide rules are
 * evaluated (isShown) against its siblings and the node's top-level values. A hidden field leaves the page, not
 * just the view, so that two variants of one parameter (HTTP Method as one choice or several) never both answer to
 * a label; it keeps what was entered in case it comes back. In a collection, a field also needs to be added.
 */
import { isShown } from 'workflow-webhooks/definitions';
import { h } from '../dom.js';
import { Field } from './field.js';
import { definitionsOf, labelOf, type FormHost, type ListChoices, type NestedList } from './types.js';

/** Evaluating shows from values that themselves depend on what is shown settles within a few passes. */
const MAX_PASSES = 4;

export class FieldList implements NestedList {
  readonly element: HTMLDivElement;
  /** Where node settings (isNodeSetting) go when the owner shows them apart, as the platform's Settings tab does. */
  readonly settings: HTMLDivElement | undefined;
  readonly fields: Field[];
  readonly #host: FormHost;
  readonly #choices: ListChoices | undefined;
  #shown = new Set<Field>();

  constructor(definitions: unknown, values: Record<string, unknown>, at: { pointerBase: string; valueBase: string; separateSettings?: boolean }, host: FormHost, choices?: ListChoices) {
    this.#host = host;
    this.#choices = choices;
    this.element = h('div', { class: 'fields' });
    this.settings = at.separateSettings === true ? h('div', { class: 'fields settings' }) : undefined;
    const nestedList = (inner: unknown, innerValues: Record<string, unknown>, innerAt: { pointerBase: string; valueBase: string }, innerChoices?: ListChoices): NestedList =>
      new FieldList(inner, innerValues, innerAt, host, innerChoices);
    this.fields = definitionsOf(definitions).map(({ definition, index }) => {
      const name = String(definition.name);
      const initial = Object.hasOwn(values, name) ? values[name] : definition.default;
      const field = new Field(definition, initial, { pointer: `${at.pointerBase}/${index}`, valuePath: `${at.valueBase}/${name}` }, host, nestedList);
      choices?.decorate(field.element, name, labelOf(definition));
      return field;
    });
    // Until the first refresh every included field counts: the first pass then decides from all the values entered.
    this.#shown = new Set(this.fields.filter((field) => this.#included(field)));
  }

  #included(field: Field): boolean {
    return this.#choices?.include(field.name) ?? true;
  }

  #rulesHold(field: Field, siblings: Record<string, unknown>, root: Record<string, unknown>): boolean {
    const version = this.#host.version;
    return isShown(field.definition, version === undefined ? { siblings, root } : { siblings, root, version });
  }

  /** The values of the fields shown, by name. */
  values(): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const field of this.fields) if (this.#shown.has(field)) values[field.name] = field.read();
    return values;
  }

  entries(): { name: string; label: string; allowed: boolean }[] {
    const siblings = this.values();
    const root = this.#host.rootValues();
    return this.fields.map((field) => ({ name: field.name, label: labelOf(field.definition), allowed: this.#rulesHold(field, siblings, root) }));
  }

  refresh(): void {
    const root = this.#host.rootValues();
    for (let pass = 0; pass < MAX_PASSES; pass += 1) {
      const siblings = this.values();
      const next = new Set(this.fields.filter((field) => this.#included(field) && this.#rulesHold(field, siblings, root)));
      const same = next.size === this.#shown.size && [...next].every((field) => this.#shown.has(field));
      this.#shown = next;
      if (same) break;
    }
    this.#place();
    for (const field of this.#shown) {
      field.control.refresh?.();
      field.revalidate();
    }
  }

  #containerOf(field: Field): HTMLDivElement {
    return this.settings !== undefined && field.definition.isNodeSetting === true ? this.settings : this.element;
  }

  /** Adds and removes only what changed, so the field being edited keeps its focus. */
  #place(): void {
    this.fields.forEach((field, index) => {
      const container = this.#containerOf(field);
      const attached = field.element.parentNode === container;
      if (this.#shown.has(field) && !attached) {
        const after = this.fields.slice(index + 1).find((other) => other.element.parentNode === container);
        container.insertBefore(field.element, after?.element ?? null);
      } else if (!this.#shown.has(field) && attached) {
        field.element.remove();
      }
    });
  }

  validateAll(): number {
    return [...this.#shown].reduce((count, field) => count + field.validateAll(), 0);
  }

  focusFirst(): void {
    this.fields.find((field) => this.#shown.has(field))?.focus();
  }

  focusField(name: string): void {
    this.fields.find((field) => field.name === name && this.#shown.has(field))?.focus();
  }

  shownCount(): number {
    return this.#shown.size;
  }
}
