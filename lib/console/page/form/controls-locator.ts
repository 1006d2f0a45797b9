/**
 * The resourceLocator control: a mode switch (From list, By URL, ID, …) and the input of the chosen mode. A list
 * mode asks the node's search method for its entries (with the search text when it is searchable); a string mode
 * takes text, which the mode's regex validation checks (its errorMessage shows under the field) and whose link the
 * mode's url template gives.
 */
import { resolveLocatorUrl } from 'workflow-webhooks/definitions';
import { h, newId, textOf } from '../dom.js';
import { isRecord, type ControlFactory, type Definition, type SearchResult } from './types.js';

function modesOf(definition: Definition): Definition[] {
  return Array.isArray(definition.modes) ? definition.modes.filter(isRecord) : [];
}

export const resourceLocatorControl: ControlFactory = (definition, initial, context) => {
  const modes = modesOf(definition);
  const start = isRecord(initial) ? initial : isRecord(definition.default) ? definition.default : {};
  let mode = modes.find((one) => one.name === start.mode) ?? modes[0];
  let cachedName = typeof start.cachedResultName === 'string' ? start.cachedResultName : undefined;
  const modeSelect = h('select', { id: newId(), class: 'mode' }, ...modes.map((one) => h('option', { value: textOf(one.name) }, textOf(one.displayName))));
  modeSelect.value = textOf(mode?.name);
  const text = h('input', { id: context.id, type: 'text', oninput: () => { cachedName = undefined; context.input(); } });
  const list = h('select', { id: context.id });
  const search = h('input', { id: newId(), type: 'search', placeholder: 'Search…' });
  const searchCell = h('span', { class: 'cell' }, h('label', { for: search.id }, 'Search'), search);
  const status = h('p', { class: 'hint', 'aria-live': 'polite' });
  const modeHint = h('p', { class: 'hint' });
  const link = h('a', { class: 'open', target: '_blank', rel: 'noopener noreferrer', hidden: true }, 'Open');
  const valueSlot = h('span', { class: 'locator-value' });
  let results: SearchResult[] = [];
  /** The list mode's value: kept while the list (re)loads, so a stored choice survives until its entry arrives. */
  let listValue: unknown = mode?.type === 'list' ? start.value ?? '' : '';

  const isList = (): boolean => mode?.type === 'list';
  const read = (): Record<string, unknown> => {
    const name = isList() ? cachedName : undefined;
    return { __rl: true, mode: textOf(mode?.name), value: isList() ? listValue : text.value, ...(name === undefined ? {} : { cachedResultName: name }) };
  };

  const load = async (): Promise<void> => {
    const typeOpts = isRecord(mode?.typeOptions) ? mode.typeOptions : {};
    const method = textOf(typeOpts.searchListMethod);
    const filter = search.value;
    if (typeOpts.searchFilterRequired === true && filter.trim() === '') {
      status.textContent = 'Type a search term: this list cannot be browsed whole.';
      return;
    }
    if (context.host.methods === undefined || method === '') {
      status.textContent = method === '' ? 'This list mode names no searchListMethod, so it has nothing to show.' : `The list comes from the node's method ${method}, which this page cannot call.`;
      return;
    }
    status.textContent = 'Loading…';
    const answer = await context.host.methods.listSearch(method, filter);
    if ('error' in answer) {
      status.textContent = answer.error;
      return;
    }
    results = answer.results;
    list.replaceChildren(h('option', { value: '' }, textOf(mode?.placeholder) || 'Choose…'), ...results.map((one) => h('option', { value: String(one.value) }, one.name)));
    list.selectedIndex = results.findIndex((one) => one.value === listValue) + 1;
    status.textContent = `${results.length} found`;
  };

  const show = (): void => {
    const listMode = isList();
    const [from, to] = listMode ? [text, list] : [list, text];
    // The field set its label's description, required and invalid marks on one input; the other takes them over.
    for (const name of ['aria-describedby', 'aria-required', 'aria-invalid']) {
      const value = from.getAttribute(name);
      if (value !== null) to.setAttribute(name, value);
    }
    valueSlot.replaceChildren(to);
    searchCell.hidden = !(listMode && isRecord(mode?.typeOptions) && mode.typeOptions.searchable === true);
    status.hidden = !listMode;
    text.placeholder = textOf(mode?.placeholder);
    modeHint.textContent = textOf(mode?.hint);
    modeHint.hidden = modeHint.textContent === '';
    if (listMode) void load();
  };

  if (mode?.type !== 'list') text.value = textOf(start.value);
  modeSelect.addEventListener('change', () => {
    mode = modes.find((one) => one.name === modeSelect.value);
    // Another mode means another kind of value: what the last mode held does not carry over.
    text.value = '';
    listValue = '';
    cachedName = undefined;
    list.selectedIndex = 0;
    show();
    context.input();
  });
  list.addEventListener('change', () => {
    const chosen = results[list.selectedIndex - 1];
    listValue = chosen?.value ?? '';
    cachedName = chosen?.name;
    context.input();
  });
  let timer: number | undefined;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => { void load(); }, 200);
  });
  show();

  const modeCell = h('span', { class: 'cell mode-cell' }, h('label', { for: modeSelect.id }, 'Mode'), modeSelect);
  const element = h('div', { class: 'locator' }, h('div', { class: 'locator-row' }, modeCell, valueSlot, link), searchCell, status, modeHint);
  return {
    element,
    // The field's label names the value input of whichever mode is chosen; both carry the field's id, one at a time.
    get focusTarget(): HTMLElement { return isList() ? list : text; },
    labelled: true,
    read,
    refresh: () => {
      const url = resolveLocatorUrl(definition, read());
      link.hidden = url === undefined || read().value === '';
      if (url !== undefined) link.href = url;
    },
  };
};
