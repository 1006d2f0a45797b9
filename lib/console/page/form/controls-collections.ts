/**
 * Controls of the grouping types. A collection offers its optional fields behind an add-button labelled with its
 * placeholder; each added field can be removed again. A fixedCollection shows named groups of fields, each group
 * once, or as often as the user adds it when `multipleValues` is on.
 */
import { h, screenReaderText, textOf } from '../dom.js';
import { isRecord, labelOf, typeOptions, type ControlContext, type ControlFactory, type Definition, type NestedList } from './types.js';

/** An add-button and the menu of what it can add; the menu closes after a choice or Escape. */
function addMenu(label: string, choices: () => { text: string; pick: () => void }[]): HTMLElement {
  const menu = h('div', { class: 'add-menu', role: 'group', 'aria-label': 'Choices', hidden: true });
  const button = h('button', { type: 'button', class: 'add', 'aria-expanded': 'false' }, label);
  const close = (): void => {
    menu.hidden = true;
    button.setAttribute('aria-expanded', 'false');
  };
  button.addEventListener('click', () => {
    const list = choices();
    if (list.length === 1) {
      list[0]?.pick();
      return;
    }
    menu.replaceChildren(...(list.length === 0
      ? [h('p', { class: 'hint' }, 'Everything it offers is added already.')]
      : list.map(({ text, pick }) => h('button', { type: 'button', onclick: () => { close(); pick(); } }, text))));
    menu.hidden = !menu.hidden;
    button.setAttribute('aria-expanded', String(!menu.hidden));
    (menu.querySelector('button') as HTMLButtonElement | null)?.focus();
  });
  menu.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    close();
    button.focus();
  });
  return h('div', { class: 'add-area' }, button, menu);
}

function removeButton(what: string, remove: () => void): HTMLButtonElement {
  return h('button', { type: 'button', class: 'remove', onclick: remove }, 'Remove', screenReaderText(` ${what}`));
}

function fieldset(definition: Definition, context: ControlContext, ...children: HTMLElement[]): HTMLFieldSetElement {
  return h('fieldset', { class: 'group', id: context.id, tabindex: -1 }, h('legend', {}, labelOf(definition)), ...children);
}

export const collectionControl: ControlFactory = (definition, initial, context) => {
  const stored = isRecord(initial) ? initial : {};
  const added = new Set(Object.keys(stored));
  // One list for all options, so that an option's show rules read the others; only the added ones count.
  const list = context.nestedList(definition.options, stored, { pointerBase: `${context.pointer}/options`, valueBase: context.valuePath }, {
    include: (name) => added.has(name),
    decorate: (element, name, label) => {
      element.append(removeButton(label, () => {
        added.delete(name);
        context.input();
        (menu.querySelector('button') as HTMLButtonElement).focus();
      }));
    },
  });
  const placeholder = typeof definition.placeholder === 'string' ? definition.placeholder : `Add ${labelOf(definition)}`;
  const menu = addMenu(placeholder, () => list.entries()
    .filter((entry) => !added.has(entry.name) && entry.allowed)
    .map((entry) => ({
      text: entry.label,
      pick: () => {
        added.add(entry.name);
        context.input();
        list.focusField(entry.name);
      },
    })));
  const empty = h('p', { class: 'empty' }, 'None added.');
  return {
    element: fieldset(definition, context, list.element, empty, menu),
    focusTarget: menu.querySelector('button') as HTMLElement,
    labelled: false,
    nested: true,
    read: () => list.values(),
    refresh: () => {
      list.refresh();
      empty.hidden = list.shownCount() > 0;
    },
    validateAll: () => list.validateAll(),
  };
};

interface GroupEntry { group: Definition; list: NestedList; row: HTMLElement }

export const fixedCollectionControl: ControlFactory = (definition, initial, context) => {
  const stored = isRecord(initial) ? initial : {};
  const multiple = typeOptions(definition).multipleValues === true;
  const groups = Array.isArray(definition.options) ? definition.options.filter(isRecord) : [];
  const entries: GroupEntry[] = [];
  const body = h('div', { class: 'group-entries' });

  const add = (groupIndex: number, values: unknown, focus: boolean): void => {
    const group = groups[groupIndex];
    if (group === undefined) return;
    const name = textOf(group.name);
    const sameGroup = entries.filter((entry) => entry.group === group);
    const valueBase = multiple ? `${context.valuePath}/${name}/${sameGroup.length}` : `${context.valuePath}/${name}`;
    const list = context.nestedList(group.values, isRecord(values) ? values : {}, { pointerBase: `${context.pointer}/options/${groupIndex}/values`, valueBase });
    const title = multiple ? `${labelOf(group)} ${sameGroup.length + 1}` : labelOf(group);
    const row: HTMLElement = h('fieldset', { class: 'group-entry' }, h('legend', {}, title), list.element, removeButton(title, () => {
      entries.splice(entries.findIndex((entry) => entry.row === row), 1);
      row.remove();
      context.input();
    }));
    const entry = { group, list, row };
    entries.push(entry);
    body.append(row);
    // Only a user's add is a change: entries stored earlier are built with the form, before anything listens.
    if (focus) {
      context.input();
      list.focusFirst();
    }
  };
  groups.forEach((group, index) => {
    const value = stored[textOf(group.name)];
    if (value === undefined) return;
    for (const one of multiple && Array.isArray(value) ? value : [value]) add(index, one, false);
  });
  const buttonText = textOf(typeOptions(definition).multipleValueButtonText ?? definition.placeholder) || `Add ${labelOf(definition)}`;
  const menu = addMenu(buttonText, () => groups.flatMap((group, index) => (
    multiple || !entries.some((entry) => entry.group === group) ? [{ text: labelOf(group), pick: () => add(index, {}, true) }] : []
  )));
  const read = (): Record<string, unknown> => {
    const value: Record<string, unknown> = {};
    for (const group of groups) {
      const lists = entries.filter((entry) => entry.group === group).map((entry) => entry.list.values());
      if (lists.length > 0) value[textOf(group.name)] = multiple ? lists : lists[0];
    }
    return value;
  };
  return {
    element: fieldset(definition, context, body, menu),
    focusTarget: menu.querySelector('button') as HTMLElement,
    labelled: false,
    nested: true,
    read,
    refresh: () => { for (const entry of entries) entry.list.refresh(); },
    validateAll: () => entries.reduce((count, entry) => count + entry.list.validateAll(), 0),
  };
};
