/**
 * The Recent calls section: the calls the console kept, newest first, and each new one as it is answered (the
 * `call` event), with its status, duration, workflow, error code and call id (the id a caller quotes in a support
 * request, selectable as text); a call its payload schema refused lists where it did not match and what was expected.
 * Filtered by text, or to errors only.
 */
import type { CallListing, CallRecord } from '../protocol.js';
import { errorText } from './api.js';
import { h, newId, scrollTable } from './dom.js';
import { clockTime, duration } from './format.js';
import { coalesced, firstShow, type ConsoleContext, type Section } from './section.js';

const isError = (call: CallRecord): boolean => (call.status !== undefined && call.status >= 400) || call.code !== undefined;

function callRow(call: CallRecord): HTMLTableRowElement {
  const workflow = call.workflowName ?? call.workflowId;
  return h('tr', { class: `call${call.status !== undefined && call.status >= 400 ? ' failed' : ''}`, 'data-call-id': call.callId },
    h('td', { class: 'time' }, clockTime(call.at)),
    h('td', {}, h('span', { class: 'method' }, call.method)),
    h('td', { class: 'path' }, h('code', { title: call.path }, call.route ?? call.path), call.mode === 'test' ? h('span', { class: 'sub' }, 'test') : null),
    h('td', { class: 'status', title: call.status === undefined ? 'No answer went out: the caller hung up.' : undefined }, call.status === undefined ? '—' : String(call.status)),
    h('td', { class: 'duration' }, duration(call.durationMs)),
    h('td', {}, workflow === undefined ? '—' : h('span', { class: 'workflow-name' }, workflow), call.nodeName === undefined ? null : h('span', { class: 'sub' }, call.nodeName)),
    h('td', { class: 'code', title: call.message }, call.code ?? '', payloadErrors(call)),
    h('td', { class: 'instance' }, call.instance ?? ''),
    h('td', {}, h('code', { class: 'call-id' }, call.callId)));
}

/** PAYLOAD_INVALID: each place the call did not match its schema and what was expected there (the server never sends the values). */
function payloadErrors(call: CallRecord): HTMLUListElement | null {
  if (call.errors === undefined || call.errors.length === 0) return null;
  return h('ul', { class: 'payload-errors', 'aria-label': 'Where the payload did not match its schema' },
    ...call.errors.map((error) => h('li', {}, h('code', {}, error.path), ` ${error.message}`)));
}

function searchText(call: CallRecord): string {
  return [call.method, call.path, call.route, call.status, call.workflowName, call.workflowId, call.nodeName, call.code, call.message, call.instance, call.callId, call.mode,
    ...(call.errors ?? []).map((error) => `${error.path} ${error.message}`)]
    .filter((part) => part !== undefined).join('\n').toLowerCase();
}

interface Shown { call: CallRecord; element: HTMLTableRowElement; text: string }

export function callsSection({ api, overview }: ConsoleContext): Section {
  const kept = Math.max(1, overview.recentCallsKept);
  const filter = h('input', { type: 'search', id: newId('calls-filter'), class: 'filter', autocomplete: 'off', spellcheck: 'false' });
  const errorsOnly = h('input', { type: 'checkbox', id: newId('errors-only') });
  const refresh = h('button', { type: 'button', class: 'refresh' }, 'Refresh');
  const count = h('p', { class: 'call-count' });
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const empty = h('p', { class: 'empty', hidden: true });
  const body = h('tbody');
  const table = scrollTable('Recent calls', ['Time', 'Method', 'Path', 'Status', 'Duration', 'Workflow', 'Code', 'Instance', 'Call id'], body);
  /** Newest first, as on the page. */
  let shown: Shown[] = [];
  let loaded = false;

  const matches = (row: Shown): boolean => {
    const words = filter.value.trim().toLowerCase();
    return (!errorsOnly.checked || isError(row.call)) && (words === '' || row.text.includes(words));
  };
  const summarize = (): void => {
    const visible = shown.filter((row) => !row.element.hidden).length;
    count.textContent = `${visible} of ${shown.length} call${shown.length === 1 ? '' : 's'} (the console keeps the last ${kept})`;
    table.hidden = visible === 0;
    empty.hidden = visible > 0 || !loaded;
    empty.textContent = shown.length === 0 ? 'No calls yet: each call to a webhook shows here as soon as it is answered.' : 'No call matches the filter.';
  };
  const applyFilter = (): void => {
    for (const row of shown) row.element.hidden = !matches(row);
    summarize();
  };
  const make = (call: CallRecord): Shown => {
    const row = { call, element: callRow(call), text: searchText(call) };
    row.element.hidden = !matches(row);
    return row;
  };

  /** A call the stream brought: on top, unless the page has it already; the oldest beyond what is kept goes. */
  const add = (call: CallRecord): void => {
    const known = shown.findIndex((row) => row.call.callId === call.callId);
    const row = make(call);
    if (known >= 0) {
      shown[known]!.element.replaceWith(row.element);
      shown[known] = row;
    } else {
      const before = shown.findIndex((other) => other.call.at <= call.at);
      if (before < 0) body.append(row.element);
      else body.insertBefore(row.element, shown[before]!.element);
      shown.splice(before < 0 ? shown.length : before, 0, row);
      for (const gone of shown.splice(kept)) gone.element.remove();
    }
    summarize();
  };

  const load = coalesced(async () => {
    refresh.disabled = true;
    const answer = await api.get<CallListing>(`calls?limit=${kept}`);
    refresh.disabled = false;
    if (!answer.ok) {
      problem.hidden = false;
      problem.textContent = `Could not load the recent calls: ${errorText(answer.error)}`;
      return;
    }
    problem.hidden = true;
    loaded = true;
    // Calls the stream brought while the list was on its way stay; the list fills in the rest.
    const byId = new Map(answer.data.calls.map((call) => [call.callId, call]));
    for (const row of shown) byId.set(row.call.callId, row.call);
    shown = [...byId.values()].sort((a, b) => b.at - a.at).slice(0, kept).map(make);
    body.replaceChildren(...shown.map((row) => row.element));
    summarize();
  });

  filter.addEventListener('input', applyFilter);
  errorsOnly.addEventListener('change', applyFilter);
  refresh.addEventListener('click', () => { void load(); });
  summarize();

  const element = h('section', { class: 'section calls', 'aria-labelledby': 'calls-title' },
    h('div', { class: 'section-head' }, h('h2', { id: 'calls-title' }, 'Recent calls'), refresh),
    h('p', { class: 'hint' }, 'Each call to a webhook, newest first, added as soon as it is answered. A call’s id is the request id the caller sent (the x-request-id header unless the middleware names another), or a new one, so a caller who reports a problem can name the call.'),
    h('div', { class: 'toolbar' },
      h('div', { class: 'cell' }, h('label', { for: filter.id }, 'Filter calls'), filter),
      h('label', { class: 'check', for: errorsOnly.id }, errorsOnly, ' Errors only')),
    count, problem, empty, table);
  const first = firstShow(load);
  return {
    element,
    show: first.show,
    event: (event) => { if (event.type === 'call' && first.shown()) add(event.call); },
    reconnected: () => { if (first.shown()) void load(); },
  };
}
