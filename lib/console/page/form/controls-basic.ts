/**
 * Controls of the element types that hold one value: string (text, password, rows, HTML editor), number (min,
 * max, precision), boolean, dateTime, color, json and notice. Each starts from the value stored, or its default
 * when the stored value has another shape, and reads back the shape the platform stores.
 */
import { h, textOf } from '../dom.js';
import { typeOptions, type ControlFactory } from './types.js';

export const stringControl: ControlFactory = (definition, initial, context) => {
  const options = typeOptions(definition);
  const text = Array.isArray(initial) ? initial.map(textOf).join(', ') : textOf(initial);
  const placeholder = typeof definition.placeholder === 'string' ? definition.placeholder : undefined;
  const rows = typeof options.rows === 'number' ? options.rows : undefined;
  const editor = typeof options.editor === 'string' ? options.editor : undefined;
  if (rows !== undefined || editor !== undefined) {
    const area = h('textarea', {
      id: context.id, rows: rows ?? 8, placeholder, spellcheck: editor === undefined ? undefined : 'false',
      class: editor === undefined ? undefined : 'code', 'data-editor': editor, oninput: () => context.input(),
    });
    area.value = text;
    const element = editor === undefined ? area : h('div', { class: 'editor-frame' }, h('span', { class: 'editor-kind', 'aria-hidden': 'true' }, editor === 'htmlEditor' ? 'HTML' : editor), area);
    return { element, focusTarget: area, labelled: true, read: () => area.value };
  }
  const input = h('input', {
    id: context.id, type: options.password === true ? 'password' : 'text', placeholder,
    autocomplete: options.password === true ? 'new-password' : 'off', oninput: () => context.input(),
  });
  input.value = text;
  return { element: input, focusTarget: input, labelled: true, read: () => input.value };
};

function decimals(precision: unknown): string {
  return typeof precision === 'number' && Number.isInteger(precision) && precision >= 0 ? String(10 ** -precision) : 'any';
}

export const numberControl: ControlFactory = (definition, initial, context) => {
  const options = typeOptions(definition);
  const input = h('input', {
    id: context.id, type: 'number', inputmode: 'decimal',
    min: typeof options.minValue === 'number' ? options.minValue : undefined,
    max: typeof options.maxValue === 'number' ? options.maxValue : undefined,
    step: decimals(options.numberPrecision),
    placeholder: typeof definition.placeholder === 'string' ? definition.placeholder : undefined,
    oninput: () => context.input(),
  });
  input.value = typeof initial === 'number' ? String(initial) : '';
  return {
    element: input, focusTarget: input, labelled: true,
    // '' is "no value yet", as the platform's nodes store it; the validator then only asks whether it is required.
    read: () => (input.value === '' ? '' : Number(input.value)),
    ownIssues: () => (input.validity.badInput ? ['Enter a number, e.g. 42 or 3.5'] : []),
  };
};

export const booleanControl: ControlFactory = (definition, initial, context) => {
  const input = h('input', { id: context.id, type: 'checkbox', role: 'switch', onchange: () => context.input() });
  input.checked = typeof initial === 'boolean' ? initial : definition.default === true;
  return { element: h('span', { class: 'switch' }, input), focusTarget: input, labelled: true, read: () => input.checked };
};

/** `<input type=datetime-local>` takes `YYYY-MM-DDTHH:mm`; a stored ISO value is cut to that, an empty one stays empty. */
export const dateTimeControl: ControlFactory = (definition, initial, context) => {
  const dateOnly = typeOptions(definition).dateOnly === true;
  const input = h('input', { id: context.id, type: dateOnly ? 'date' : 'datetime-local', oninput: () => context.input() });
  const text = textOf(initial);
  input.value = /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, dateOnly ? 10 : 16) : '';
  return { element: input, focusTarget: input, labelled: true, read: () => input.value };
};

/** A text field for the value (empty allowed, as the default is) beside the browser's colour picker. */
export const colorControl: ControlFactory = (_definition, initial, context) => {
  const input = h('input', { id: context.id, type: 'text', class: 'color-text', placeholder: '#rrggbb', oninput: () => sync() });
  const picker = h('input', { type: 'color', title: 'Pick a colour', tabindex: -1, oninput: () => { input.value = picker.value; context.input(); } });
  const sync = (): void => {
    if (/^#[0-9a-f]{6}$/i.test(input.value)) picker.value = input.value.toLowerCase();
    context.input();
  };
  input.value = textOf(initial);
  if (/^#[0-9a-f]{6}$/i.test(input.value)) picker.value = input.value.toLowerCase();
  return { element: h('span', { class: 'color' }, input, picker), focusTarget: input, labelled: true, read: () => input.value };
};

export const jsonControl: ControlFactory = (definition, initial, context) => {
  const rows = typeOptions(definition).rows;
  const area = h('textarea', { id: context.id, class: 'code', rows: typeof rows === 'number' ? rows : 5, spellcheck: 'false', oninput: () => context.input() });
  area.value = typeof initial === 'string' ? initial : JSON.stringify(initial ?? {}, null, 2);
  return { element: area, focusTarget: area, labelled: true, read: () => area.value };
};

/** A notice's text is its displayName; it holds no value but keeps its `''`. */
export const noticeControl: ControlFactory = (definition) => {
  const box = h('div', { class: 'notice', role: 'note', tabindex: -1 }, textOf(definition.displayName));
  return { element: box, focusTarget: box, labelled: false, read: () => '' };
};

/** A type beyond the 15 (hidden, button, …): its value is kept; the page says it does not render it. */
export const unknownControl: ControlFactory = (definition, initial) => {
  const box = h('p', { class: 'unsupported', tabindex: -1 },
    `${textOf(definition.displayName)}: the type "${textOf(definition.type)}" is not one of the 15 element types, so it is not rendered; its value is kept.`);
  return { element: box, focusTarget: box, labelled: false, read: () => initial };
};
