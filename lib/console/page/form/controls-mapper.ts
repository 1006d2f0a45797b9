/**
 * The resourceMapper control: asks the node's mapping method for the fields of the chosen resource (again when
 * the other parameters change), checks them with checkResourceMapperFields, and shows the mapping mode, the
 * columns to match on (update and upsert; several with multiKeyMatch) and one input per field to define below.
 * A method that succeeds with no fields shows the definition's noFieldsError.
 */
import { checkResourceMapperFields, resolveMatchingColumns, type ResourceMapperField, type ResourceMapperTypeOptions } from 'workflow-webhooks/definitions';
import { h, newId, textOf } from '../dom.js';
import { isRecord, typeOptions, type ControlFactory } from './types.js';

const MODES = [['defineBelow', 'Map each field below'], ['autoMapInputData', 'Map automatically: input keys that equal a field\'s ID or name']] as const;

function fieldInput(field: ResourceMapperField, value: unknown, changed: () => void): HTMLInputElement | HTMLSelectElement {
  const id = newId();
  if (field.type === 'options' && Array.isArray(field.options)) {
    const select = h('select', { id, onchange: changed }, h('option', { value: '' }, 'Choose…'),
      ...field.options.map((option) => h('option', { value: String(option.value) }, option.name)));
    select.value = textOf(value);
    return select;
  }
  if (field.type === 'boolean') {
    const box = h('input', { id, type: 'checkbox', onchange: changed });
    box.checked = value === true;
    return box;
  }
  const type = field.type === 'number' ? 'number' : field.type === 'dateTime' ? 'datetime-local' : 'text';
  const input = h('input', { id, type, oninput: changed });
  input.value = textOf(value);
  return input;
}

function readInput(field: ResourceMapperField, input: HTMLInputElement | HTMLSelectElement): unknown {
  if (input instanceof HTMLInputElement && input.type === 'checkbox') return input.checked;
  if (field.type === 'number' && input.value !== '') return Number(input.value);
  return input.value === '' ? null : input.value;
}

export const resourceMapperControl: ControlFactory = (definition, initial, context) => {
  const options = (isRecord(typeOptions(definition).resourceMapper) ? typeOptions(definition).resourceMapper : {}) as Partial<ResourceMapperTypeOptions>;
  const stored = isRecord(initial) ? initial : {};
  const storedValues = isRecord(stored.value) ? stored.value : {};
  const words = options.fieldWords ?? { singular: 'field', plural: 'fields' };
  const matchable = options.mode === 'update' || options.mode === 'upsert';
  let fields: ResourceMapperField[] = [];
  let inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();
  let asked = '';
  let timer: number | undefined;

  const modeSelect = h('select', { id: newId(), onchange: () => { showValues(); context.input(); } },
    ...MODES.map(([value, text]) => h('option', { value }, text)));
  modeSelect.value = stored.mappingMode === 'autoMapInputData' && options.supportAutoMap !== false ? 'autoMapInputData' : 'defineBelow';
  const modeCell = h('div', { class: 'cell', hidden: options.supportAutoMap === false }, h('label', { for: modeSelect.id }, 'Mapping mode'), modeSelect);
  const labels = options.matchingFieldsLabels ?? {};
  const match = h('select', { id: newId(), multiple: options.multiKeyMatch === true, onchange: () => context.input() });
  const matchCell = h('div', { class: 'cell', hidden: !matchable },
    h('label', { for: match.id }, labels.title ?? `${words.plural[0]?.toUpperCase()}${words.plural.slice(1)} to match on`), match,
    labels.hint === undefined ? null : h('p', { class: 'hint' }, labels.hint));
  const status = h('p', { class: 'hint', 'aria-live': 'polite' });
  const notice = h('div', { class: 'notice', role: 'note', hidden: true });
  const values = h('div', { class: 'mapper-fields' });
  const refreshButton = h('button', { type: 'button', class: 'add', onclick: () => { asked = ''; void fetchFields(); } }, `Fetch ${words.plural} again`);

  function showValues(): void {
    values.hidden = modeSelect.value !== 'defineBelow' || fields.length === 0;
  }

  function render(chosen: readonly string[]): void {
    const shown = fields.filter((field) => field.display && field.removed !== true);
    const previous = new Map([...inputs].map(([id, input]) => [id, readInput(fields.find((field) => field.id === id) ?? { id, displayName: id, required: false, defaultMatch: false, display: true }, input)]));
    inputs = new Map();
    values.replaceChildren(h('p', { class: 'hint' }, `Values to send, by ${words.singular}`), ...shown.map((field) => {
      const input = fieldInput(field, previous.get(field.id) ?? storedValues[field.id] ?? field.defaultValue, () => context.input());
      inputs.set(field.id, input);
      if (field.required) input.setAttribute('aria-required', 'true');
      return h('div', { class: 'cell' },
        h('div', { class: 'label-row' }, h('label', { for: input.id }, field.displayName), field.required ? h('span', { class: 'required-mark', 'aria-hidden': 'true' }, '*') : null),
        input);
    }));
    const candidates = fields.filter((field) => field.display && field.canBeUsedToMatch !== false);
    match.replaceChildren(...candidates.map((field) => h('option', { value: field.id, selected: chosen.includes(field.id) }, field.displayName)));
    showValues();
  }

  async function fetchFields(): Promise<void> {
    const method = textOf(options.resourceMapperMethod ?? options.localResourceMapperMethod);
    const parameters = { ...context.host.rootValues() };
    delete parameters[String(definition.name)];
    const question = JSON.stringify([method, parameters]);
    // Ask again only when something the method may read changed.
    if (question === asked) return;
    asked = question;
    if (context.host.methods === undefined || method === '') {
      status.textContent = `The ${words.plural} come from the node's method ${method || '(none named)'}, which this page cannot call.`;
      return;
    }
    status.textContent = `Loading ${words.plural}…`;
    const outcome = checkResourceMapperFields(await context.host.methods.resourceMapping(method, parameters), options);
    if (question !== asked) return;
    fields = outcome.fields;
    const problems = outcome.issues.map((issue) => `${issue.path}: ${issue.message}`);
    status.textContent = problems.length > 0 ? `The method's answer breaks the field contract: ${problems.join('; ')}` : `${fields.length} ${fields.length === 1 ? words.singular : words.plural}`;
    notice.textContent = outcome.notice ?? '';
    notice.hidden = outcome.notice === undefined;
    const storedMatch = Array.isArray(stored.matchingColumns) ? stored.matchingColumns.map(textOf) : undefined;
    render(matchable ? resolveMatchingColumns(options, fields, storedMatch).columns : []);
    context.input();
  }

  const element = h('fieldset', { class: 'group mapper', id: context.id, tabindex: -1 }, h('legend', {}, textOf(definition.displayName)),
    modeCell, matchCell, status, notice, values, refreshButton);
  return {
    element,
    focusTarget: element,
    labelled: false,
    read: () => {
      const mapped = modeSelect.value === 'defineBelow'
        ? Object.fromEntries([...inputs].map(([id, input]) => [id, readInput(fields.find((field) => field.id === id)!, input)]))
        : null;
      return {
        mappingMode: modeSelect.value,
        value: mapped,
        matchingColumns: matchable ? [...match.selectedOptions].map((option) => option.value) : [],
        schema: fields,
      };
    },
    // Debounced: typing in another field changes the parameters the method may read, once per keystroke.
    refresh: () => {
      clearTimeout(timer);
      timer = window.setTimeout(() => { void fetchFields(); }, asked === '' ? 0 : 300);
    },
  };
};
