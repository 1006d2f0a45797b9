/**
 * Controls of the choice types: options (one value, a <select>, the chosen option's description under it) and
 * multiOptions (several values, a <select multiple>). Option values may be strings, numbers or booleans, so each
 * <option> carries its value as text for the browser and the page maps it back by position.
 */
import { h, safeHtml, textOf } from '../dom.js';
import { isRecord, typeOptions, type ControlFactory, type Definition } from './types.js';

interface Entry { name: string; value: unknown; description?: string }

function entriesOf(definition: Definition): Entry[] {
  return Array.isArray(definition.options)
    ? definition.options.filter(isRecord).map((entry) => ({
      name: textOf(entry.name ?? entry.displayName),
      value: entry.value,
      ...(typeof entry.description === 'string' ? { description: entry.description } : {}),
    }))
    : [];
}

/** Options a node loads at run time (loadOptionsMethod) are not known here: the field says so and takes a value as text. */
function loadedNote(definition: Definition): string | undefined {
  const method = typeOptions(definition).loadOptionsMethod;
  return typeof method === 'string' ? `The choices come from the node's method ${method} at run time; enter a value.` : undefined;
}

export const optionsControl: ControlFactory = (definition, initial, context) => {
  const entries = entriesOf(definition);
  const note = loadedNote(definition);
  if (note !== undefined && entries.length === 0) {
    const input = h('input', { id: context.id, type: 'text', oninput: () => context.input() });
    input.value = textOf(initial);
    return { element: h('div', {}, input, h('p', { class: 'hint' }, note)), focusTarget: input, labelled: true, read: () => input.value };
  }
  const known = entries.some((entry) => entry.value === initial);
  // A value not among the options (the platform's '' for "nothing chosen", or a stale one) stays visible as such.
  const extra: Entry[] = known ? [] : [{ name: initial === '' || initial === undefined ? 'Choose…' : `${textOf(initial)} (not an option)`, value: initial }];
  const all = [...extra, ...entries];
  const select = h('select', { id: context.id, onchange: () => { describe(); context.input(); } },
    ...all.map((entry) => h('option', { value: textOf(entry.value) }, entry.name)));
  select.selectedIndex = Math.max(0, all.findIndex((entry) => entry.value === initial));
  const help = h('p', { class: 'option-description' });
  const describe = (): void => {
    const description = all[select.selectedIndex]?.description;
    help.replaceChildren(description === undefined ? '' : safeHtml(description));
    help.hidden = description === undefined;
  };
  describe();
  return { element: h('div', { class: 'select' }, select, help), focusTarget: select, labelled: true, read: () => all[select.selectedIndex]?.value };
};

export const multiOptionsControl: ControlFactory = (definition, initial, context) => {
  const entries = entriesOf(definition);
  const chosen = Array.isArray(initial) ? initial : Array.isArray(definition.default) ? definition.default : [];
  const select = h('select', { id: context.id, multiple: true, size: Math.min(Math.max(entries.length, 2), 6), onchange: () => context.input() },
    ...entries.map((entry) => h('option', { value: textOf(entry.value), selected: chosen.includes(entry.value) }, entry.name)));
  const note = loadedNote(definition);
  return {
    element: h('div', { class: 'select' }, select, h('p', { class: 'hint' }, note ?? 'Hold Ctrl (or ⌘) to choose several.')),
    focusTarget: select,
    labelled: true,
    read: () => [...select.options].flatMap((option, index) => (option.selected ? [entries[index]?.value] : [])),
  };
};
