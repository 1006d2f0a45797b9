/**
 * One field: the control of its element type with a real <label for> (so screen readers and getByLabel find it),
 * the hint under it, the description as help, and the issues validateParameterValue finds, shown under the field
 * as the user types and tied to the control with aria-describedby.
 */
import { validateParameterValue } from 'workflow-webhooks/definitions';
import { h, newId, safeHtml } from '../dom.js';
import { controlFor } from './controls.js';
import { labelOf, type Control, type ControlContext, type Definition, type FieldHandle, type FormHost } from './types.js';

export type ListFactory = ControlContext['nestedList'];

export class Field implements FieldHandle {
  readonly element: HTMLDivElement;
  readonly control: Control;
  readonly definition: Definition;
  readonly name: string;
  readonly #issues: HTMLUListElement;
  readonly #host: FormHost;
  readonly #valuePath: string;
  #touched = false;

  constructor(definition: Definition, initial: unknown, at: { pointer: string; valuePath: string }, host: FormHost, nestedList: ListFactory) {
    this.definition = definition;
    this.name = String(definition.name);
    this.#host = host;
    this.#valuePath = at.valuePath;
    const id = newId();
    this.control = controlFor(definition)(definition, initial, {
      host, id, pointer: at.pointer, valuePath: at.valuePath, nestedList,
      input: () => {
        this.#touched = true;
        this.validate();
        host.changed();
      },
    });
    const type = String(definition.type);
    const hint = typeof definition.hint === 'string' ? h('p', { class: 'hint', id: `${id}-hint` }, safeHtml(definition.hint)) : null;
    const description = typeof definition.description === 'string' && type !== 'notice'
      ? h('p', { class: 'description', id: `${id}-description` }, safeHtml(definition.description))
      : null;
    this.#issues = h('ul', { class: 'issues', id: `${id}-issues`, 'aria-live': 'polite' });
    const required = definition.required === true;
    const label = this.control.labelled
      ? h('div', { class: 'label-row' },
        h('label', { for: this.control.focusTarget.id || id }, labelOf(definition)),
        required ? h('span', { class: 'required-mark', 'aria-hidden': 'true', title: 'Required' }, '*') : null)
      : null;
    const target = this.control.focusTarget;
    if (this.control.labelled && target.id === '') target.id = id;
    if (required && this.control.labelled) target.setAttribute('aria-required', 'true');
    const describedBy = [hint, description, this.#issues].filter((node) => node !== null).map((node) => node.id).join(' ');
    target.setAttribute('aria-describedby', `${target.getAttribute('aria-describedby') ?? ''} ${describedBy}`.trim());
    this.element = h('div', { class: `field field-${type}`, 'data-type': type, 'data-name': this.name, 'data-pointer': at.pointer },
      label, this.control.element, hint, description, this.#issues);
    host.register(at.pointer, this);
  }

  read(): unknown {
    return this.control.read();
  }

  focus(): void {
    this.control.focusTarget.focus();
    this.element.scrollIntoView({ block: 'center' });
  }

  /** Checks the value as entered; shows what is wrong under the field. */
  validate(): number {
    const value = this.read();
    const issues = validateParameterValue(this.definition, value, { root: this.#host.rootValues(), path: this.#valuePath, version: this.#host.version })
      .filter((issue) => !this.control.nested || issue.path === this.#valuePath)
      .map((issue) => issue.message);
    const messages = [...(this.control.ownIssues?.() ?? []), ...issues];
    this.#issues.replaceChildren(...messages.map((message) => h('li', {}, message)));
    const invalid = messages.length > 0;
    if (this.control.labelled) this.control.focusTarget.setAttribute('aria-invalid', String(invalid));
    this.element.classList.toggle('invalid', invalid);
    return messages.length;
  }

  /** Checks this field and every field inside it, as a save does. */
  validateAll(): number {
    this.#touched = true;
    return this.validate() + (this.control.validateAll?.() ?? 0);
  }

  /** Re-checks a field the user already edited: a value another field constrains may have become valid. */
  revalidate(): void {
    if (this.#touched) this.validate();
  }
}
