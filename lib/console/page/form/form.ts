/**
 * A node's parameters as a form, rendered from its property definitions: the renderer of the console's node
 * parameter preview. It keeps the values the user entered, tells its owner about every change, and finds a
 * field by the JSON pointer of its definition (a lint finding's path).
 */
import { FieldList } from './field-list.js';
import type { FieldHandle, FormHost, NodeMethods } from './types.js';

export interface NodeFormOptions {
  /** The values stored so far; missing ones start at their definition's default. */
  values?: Record<string, unknown>;
  methods?: NodeMethods;
  version?: number;
  /** Called after every change, with the values of the fields shown. */
  onChange?: (values: Record<string, unknown>) => void;
  /** Node settings (isNodeSetting) go to `settingsElement` instead of among the parameters. */
  separateSettings?: boolean;
}

export type FocusOutcome = { focused: FieldHandle } | { hidden: FieldHandle } | { missing: string };

export class NodeForm {
  readonly element: HTMLElement;
  readonly settingsElement: HTMLElement | undefined;
  readonly #list: FieldList;
  readonly #fields = new Map<string, FieldHandle>();

  constructor(properties: unknown, options: NodeFormOptions = {}) {
    const host: FormHost = {
      rootValues: () => this.#list.values(),
      changed: () => {
        this.#list.refresh();
        options.onChange?.(this.values());
      },
      register: (pointer, field) => { this.#fields.set(pointer, field); },
      ...(options.methods === undefined ? {} : { methods: options.methods }),
      ...(options.version === undefined ? {} : { version: options.version }),
    };
    this.#list = new FieldList(properties, options.values ?? {}, { pointerBase: '/properties', valueBase: '', separateSettings: options.separateSettings === true }, host);
    this.element = this.#list.element;
    this.settingsElement = this.#list.settings;
    this.element.classList.add('node-form');
    this.#list.refresh();
  }

  values(): Record<string, unknown> {
    return this.#list.values();
  }

  /** Checks every field shown; answers how many issues the form now shows. */
  validateAll(): number {
    return this.#list.validateAll();
  }

  /**
   * Focuses the field a JSON pointer into the description points at, or the nearest field that holds it
   * (`/properties/4/modes/0/typeOptions` is inside the field `/properties/4`).
   */
  focus(pointer: string): FocusOutcome {
    const parts = pointer.split('/');
    for (let length = parts.length; length > 1; length -= 1) {
      const field = this.#fields.get(parts.slice(0, length).join('/'));
      if (field === undefined) continue;
      if (!field.element.isConnected) return { hidden: field };
      field.focus();
      return { focused: field };
    }
    return { missing: pointer };
  }
}
