/**
 * Controls of the two builder types. A filter is a list of conditions (left value, operator, right value) joined
 * by AND or OR; its case sensitivity and type validation come from the sibling options, evaluated live with
 * resolveFilterTypeOptions. An assignmentCollection is a list of name, type and value rows, as the Set node holds.
 */
import { resolveFilterTypeOptions } from 'workflow-webhooks/definitions';
import { h, newId, screenReaderText, textOf } from '../dom.js';
import { isRecord, typeOptions, type ControlContext, type ControlFactory, type Definition } from './types.js';

/** Operators by type; the unary ones take no right value. */
const OPERATORS = [
  ['string', 'equals', 'is equal to'], ['string', 'notEquals', 'is not equal to'], ['string', 'contains', 'contains'],
  ['string', 'startsWith', 'starts with'], ['string', 'exists', 'exists'], ['number', 'equals', 'is equal to'],
  ['number', 'gt', 'is greater than'], ['number', 'lt', 'is less than'], ['dateTime', 'after', 'is after'],
  ['dateTime', 'before', 'is before'], ['boolean', 'true', 'is true'], ['boolean', 'false', 'is false'],
] as const;
const UNARY = new Set(['string:exists', 'boolean:true', 'boolean:false']);
const ASSIGNMENT_TYPES = ['string', 'number', 'boolean', 'array', 'object'] as const;

interface Row { element: HTMLElement; read(): Record<string, unknown> }

/** Ids of new rows; randomUUID needs a secure context, which a page opened by a LAN address is not. */
function rowId(value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  return typeof crypto.randomUUID === 'function' && isSecureContext ? crypto.randomUUID() : newId('row-');
}

function rowsArea(context: ControlContext, definition: Definition, addText: string, makeRow: (value: Record<string, unknown>, remove: () => void) => Row, stored: unknown[]): {
  element: HTMLElement; rows: Row[]; addButton: HTMLButtonElement; add(value: Record<string, unknown>, focus: boolean): void;
} {
  const rows: Row[] = [];
  const list = h('ol', { class: 'rows' });
  const add = (value: Record<string, unknown>, focus: boolean): void => {
    const row: Row = makeRow(value, () => {
      rows.splice(rows.indexOf(row), 1);
      item.remove();
      context.input();
    });
    const item = h('li', {}, row.element);
    rows.push(row);
    list.append(item);
    if (focus) (item.querySelector('input, select') as HTMLElement | null)?.focus();
  };
  for (const value of stored) if (isRecord(value)) add(value, false);
  const addButton = h('button', { type: 'button', class: 'add', onclick: () => { add({}, true); context.input(); } }, addText);
  const element = h('fieldset', { class: 'group', id: context.id, tabindex: -1 }, h('legend', {}, textOf(definition.displayName)), list, addButton);
  return { element, rows, addButton, add };
}

function removeButton(what: string, remove: () => void): HTMLButtonElement {
  return h('button', { type: 'button', class: 'remove', onclick: remove }, 'Remove', screenReaderText(` ${what}`));
}

function labelled(text: string, control: HTMLInputElement | HTMLSelectElement): HTMLElement {
  control.id = newId();
  return h('span', { class: 'cell' }, h('label', { for: control.id }, text), control);
}

export const filterControl: ControlFactory = (definition, initial, context) => {
  const stored = isRecord(initial) ? initial : {};
  const allowed = (typeOptions(definition).filter as { allowedCombinators?: unknown } | undefined)?.allowedCombinators;
  const combinators = Array.isArray(allowed) && allowed.length > 0 ? allowed.map(textOf) : ['and', 'or'];
  const makeRow = (value: Record<string, unknown>, remove: () => void): Row => {
    const operator = isRecord(value.operator) ? value.operator : {};
    const left = h('input', { type: 'text', value: textOf(value.leftValue), placeholder: '{{ $json.status }}', oninput: () => context.input() });
    const right = h('input', { type: 'text', value: textOf(value.rightValue), oninput: () => context.input() });
    const rightCell = labelled('Compared with', right);
    const select = h('select', { onchange: () => { rightCell.hidden = UNARY.has(select.value); context.input(); } },
      ...OPERATORS.map(([type, operation, text]) => h('option', { value: `${type}:${operation}` }, `${type === 'dateTime' ? 'Date' : type[0]!.toUpperCase() + type.slice(1)}: ${text}`)));
    select.value = `${textOf(operator.type) || 'string'}:${textOf(operator.operation) || 'equals'}`;
    rightCell.hidden = UNARY.has(select.value);
    const id = rowId(value.id);
    return {
      element: h('div', { class: 'condition' }, labelled('Value', left), labelled('Operator', select), rightCell, removeButton('condition', remove)),
      read: () => {
        const [type, operation] = select.value.split(':');
        const unary = UNARY.has(select.value);
        return { id, leftValue: left.value, rightValue: unary ? '' : right.value, operator: { type, operation, ...(unary ? { singleValue: true } : {}) } };
      },
    };
  };
  const area = rowsArea(context, definition, 'Add condition', makeRow, Array.isArray(stored.conditions) ? stored.conditions : []);
  const combinator = h('select', { onchange: () => context.input() }, ...combinators.map((one) => h('option', { value: one }, one.toUpperCase())));
  combinator.value = combinators.includes(textOf(stored.combinator)) ? textOf(stored.combinator) : combinators[0]!;
  const combinatorCell = labelled('Conditions are joined with', combinator);
  const rules = h('p', { class: 'hint filter-rules' });
  area.element.insertBefore(h('div', { class: 'filter-head' }, combinatorCell, rules), area.element.children[1] ?? null);
  // Evaluated on refresh and kept: reading the node's values from inside a read would read this filter again.
  let settings = resolveFilterTypeOptions(typeOptions(definition).filter, {});
  return {
    element: area.element,
    focusTarget: area.addButton,
    labelled: false,
    read: () => {
      const { caseSensitive, typeValidation } = settings;
      return { conditions: area.rows.map((row) => row.read()), combinator: combinator.value, options: { caseSensitive, typeValidation, leftValue: '', version: 2 } };
    },
    refresh: () => {
      settings = resolveFilterTypeOptions(typeOptions(definition).filter, context.host.rootValues());
      const { caseSensitive, typeValidation } = settings;
      rules.textContent = `Comparisons are ${caseSensitive ? 'case sensitive' : 'not case sensitive'}; value types are checked ${typeValidation === 'strict' ? 'strictly' : 'loosely (cast where the operator allows)'}, as the node's options say.`;
      combinatorCell.hidden = area.rows.length < 2;
    },
  };
};

export const assignmentCollectionControl: ControlFactory = (definition, initial, context) => {
  const stored = isRecord(initial) && Array.isArray(initial.assignments) ? initial.assignments : [];
  const makeRow = (value: Record<string, unknown>, remove: () => void): Row => {
    const name = h('input', { type: 'text', value: textOf(value.name), placeholder: 'name', oninput: () => context.input() });
    const type = h('select', { onchange: () => context.input() }, ...ASSIGNMENT_TYPES.map((one) => h('option', { value: one }, one)));
    type.value = ASSIGNMENT_TYPES.includes(value.type as never) ? textOf(value.type) : 'string';
    const text = typeof value.value === 'string' ? value.value : value.value === undefined ? '' : JSON.stringify(value.value);
    const input = h('input', { type: 'text', value: text, placeholder: 'value', oninput: () => context.input() });
    const id = rowId(value.id);
    return {
      element: h('div', { class: 'assignment' }, labelled('Name', name), labelled('Type', type), labelled('Value', input), removeButton('field', remove)),
      read: () => ({ id, name: name.value, type: type.value, value: typed(type.value, input.value) }),
    };
  };
  const area = rowsArea(context, definition, 'Add field', makeRow, stored);
  // A data key dropped on the list pre-fills a row's name and value, as dragging from an input pane does.
  area.element.addEventListener('dragover', (event) => event.preventDefault());
  area.element.addEventListener('drop', (event) => {
    event.preventDefault();
    const dropped = event.dataTransfer?.getData('text/plain') ?? '';
    const [key, ...rest] = dropped.split('=');
    if (key === undefined || key.trim() === '') return;
    area.add({ name: key.trim(), value: rest.length > 0 ? rest.join('=') : `={{ $json.${key.trim()} }}` }, true);
    context.input();
  });
  return {
    element: area.element,
    focusTarget: area.addButton,
    labelled: false,
    read: () => ({ assignments: area.rows.map((row) => row.read()) }),
  };
};

function typed(type: string, text: string): unknown {
  if (text.startsWith('=')) return text;
  if (type === 'number') return text.trim() === '' || Number.isNaN(Number(text)) ? text : Number(text);
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (type === 'array' || type === 'object') {
    try { return JSON.parse(text); } catch { return text; }
  }
  return text;
}
