/**
 * The History section's filter: workflow, node, method, status class, error code, time range, request id and a value
 * at a place of the body, read into the filter the API takes (as a query for finding, as JSON for a bulk replay).
 */
import type { HistoryFilterDto } from '../protocol.js';
import { equalsOf, HISTORY_TEXT_FIELDS, type HistoryTextField } from '../protocol-history.js';
import { h, newId } from './dom.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const STATUS_CLASSES: [string, string][] = [['2', '2xx'], ['3', '3xx'], ['4', '4xx'], ['5', '5xx'], ['1', '1xx'], ['0', 'No answer went out']];

export interface HistoryFilterForm {
  element: HTMLFormElement;
  /** The filter as the fields say now (blank fields left out). */
  read(): HistoryFilterDto;
  /** Fills the fields with a filter (`replayOf` of a call's Replays link). */
  fill(filter: HistoryFilterDto): void;
}

/** The filter as GET /api/history's query; `equals` is sent as JSON so that the server reads the same scalar. */
export function queryOf(filter: HistoryFilterDto): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) {
    if (name === 'body') continue;
    if (value !== undefined) query.set(name, String(value));
  }
  if (filter.body !== undefined) {
    query.set('pointer', filter.body.pointer);
    query.set('equals', JSON.stringify(filter.body.equals));
  }
  return query;
}

function localTime(at: number | undefined): string {
  if (at === undefined) return '';
  const date = new Date(at - new Date(at).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}

function textField(label: string, name: string, placeholder = ''): { cell: HTMLElement; input: HTMLInputElement } {
  const input = h('input', { type: 'text', id: newId('history-filter'), name, autocomplete: 'off', spellcheck: 'false', placeholder });
  return { cell: h('div', { class: 'cell' }, h('label', { for: input.id }, label), input), input };
}

function choice(label: string, name: string, options: [string, string][]): { cell: HTMLElement; select: HTMLSelectElement } {
  const select = h('select', { id: newId('history-filter'), name },
    h('option', { value: '' }, 'Any'), ...options.map(([value, text]) => h('option', { value }, text)));
  return { cell: h('div', { class: 'cell narrow' }, h('label', { for: select.id }, label), select), select };
}

function timeField(label: string, name: string): { cell: HTMLElement; input: HTMLInputElement } {
  const input = h('input', { type: 'datetime-local', id: newId('history-filter'), name });
  return { cell: h('div', { class: 'cell time-cell' }, h('label', { for: input.id }, label), input), input };
}

export function historyFilterForm(find: () => void): HistoryFilterForm {
  const workflow = textField('Workflow id', 'workflowId');
  const node = textField('Node', 'nodeName');
  const method = choice('Method', 'method', METHODS.map((one) => [one, one]));
  const status = choice('Status', 'statusClass', STATUS_CLASSES);
  const code = textField('Error code', 'code', 'WORKFLOW_FAILED');
  const from = timeField('From', 'from');
  const to = timeField('Before', 'to');
  const requestId = textField('Request id', 'requestId');
  const pointer = textField('Body field (JSON pointer)', 'pointer', '/order/status');
  const equals = textField('Equals', 'equals', 'paid, 42, true or null');
  const replayOf = textField('Replays of call', 'replayOf');
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const clear = h('button', { type: 'button', class: 'clear' }, 'Clear');
  const element = h('form', { class: 'history-filter', 'aria-label': 'Find kept calls' },
    h('div', { class: 'toolbar' }, workflow.cell, node.cell, method.cell, status.cell, code.cell, requestId.cell),
    h('div', { class: 'toolbar' }, from.cell, to.cell, pointer.cell, equals.cell, replayOf.cell),
    problem,
    h('div', { class: 'toolbar' }, h('button', { type: 'submit', class: 'primary find' }, 'Find'), clear));

  // Typed by the protocol's list: a text field the API takes and the form lacks does not compile.
  const texts: Record<HistoryTextField, HTMLInputElement | HTMLSelectElement> = {
    workflowId: workflow.input, nodeName: node.input, method: method.select, code: code.input, requestId: requestId.input, replayOf: replayOf.input,
  };
  const timeOf = (input: HTMLInputElement): number | undefined => (input.value === '' ? undefined : new Date(input.value).getTime());
  const read = (): HistoryFilterDto => {
    const filter: HistoryFilterDto = {};
    for (const name of HISTORY_TEXT_FIELDS) {
      const value = texts[name].value.trim();
      if (value !== '') filter[name] = value;
    }
    if (status.select.value !== '') filter.statusClass = Number(status.select.value) as HistoryFilterDto['statusClass'];
    const fromAt = timeOf(from.input);
    const toAt = timeOf(to.input);
    if (fromAt !== undefined) filter.from = fromAt;
    if (toAt !== undefined) filter.to = toAt;
    if (pointer.input.value.trim() !== '') filter.body = { pointer: pointer.input.value.trim(), equals: equalsOf(equals.input.value) };
    return filter;
  };
  const fill = (filter: HistoryFilterDto): void => {
    for (const name of HISTORY_TEXT_FIELDS) texts[name].value = filter[name] ?? '';
    status.select.value = filter.statusClass === undefined ? '' : String(filter.statusClass);
    from.input.value = localTime(filter.from);
    to.input.value = localTime(filter.to);
    pointer.input.value = filter.body?.pointer ?? '';
    equals.input.value = filter.body === undefined ? '' : typeof filter.body.equals === 'string' ? filter.body.equals : JSON.stringify(filter.body.equals);
  };

  element.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = pointer.input.value.trim();
    problem.hidden = body === '' || body.startsWith('/');
    problem.textContent = problem.hidden ? '' : 'The body field is a JSON pointer: it starts with "/", such as /order/status.';
    if (problem.hidden) find();
  });
  clear.addEventListener('click', () => {
    fill({});
    problem.hidden = true;
    find();
  });
  return { element, read, fill };
}
