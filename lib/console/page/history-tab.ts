/**
 * The History section: the calls the middleware's history keeps, found by the filter, newest first, a page at a
 * time; a call opened by its address (`#history/<id>`) shows what it sent and got with its Replay; and the bulk
 * replay of everything the filter matches. Every value a caller sent is set as text, never as HTML.
 */
import type { HistoryEntryDto, HistoryFilterDto, HistoryListing } from '../protocol.js';
import { errorText } from './api.js';
import { h, scrollTable } from './dom.js';
import { clockTime, duration } from './format.js';
import { bulkPanel } from './history-bulk.js';
import { entryHref, entryView } from './history-entry-view.js';
import { historyFilterForm, queryOf } from './history-filter-form.js';
import { coalesced, type ConsoleContext, type Section } from './section.js';

const PAGE = 50;

function replayCell(entry: HistoryEntryDto): HTMLTableCellElement {
  return h('td', { class: 'replay-link' },
    entry.replayOf === undefined ? null : h('span', {}, h('span', { class: 'kind replay-badge' }, 'replay'), ' of ',
      h('a', { class: 'original', href: entryHref(entry.replayOf) }, 'its original')),
    entry.replayedBy === undefined ? null : h('span', { class: 'sub' }, `by ${entry.replayedBy}`),
    entry.replays === 0 ? null : h('span', { class: 'sub replays' }, `replayed ${entry.replays}×`));
}

function entryRow(entry: HistoryEntryDto): HTMLTableRowElement {
  const failed = entry.status === undefined || entry.status >= 400;
  return h('tr', { class: `history-row call${failed ? ' failed' : ''}`, 'data-entry-id': entry.id },
    h('td', { class: 'time' }, clockTime(entry.at)),
    h('td', {}, h('span', { class: 'method' }, entry.method)),
    h('td', { class: 'path' }, h('code', { title: entry.route }, entry.path), h('span', { class: 'sub' }, `${entry.workflowId} · ${entry.nodeName}`)),
    h('td', { class: 'status' }, entry.status === undefined ? '—' : String(entry.status)),
    h('td', { class: 'code' }, entry.code ?? ''),
    h('td', { class: 'duration' }, duration(entry.durationMs)),
    replayCell(entry),
    h('td', {}, h('a', { class: 'open-entry', href: entryHref(entry.id) }, 'Open', h('span', { class: 'vh' }, ` the call ${entry.id}`))));
}

export function historySection({ api }: ConsoleContext): Section {
  let applied: HistoryFilterDto = {};
  let next: string | undefined;
  let opened: string | undefined;
  let started = false;
  const count = h('p', { class: 'call-count history-count' });
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const empty = h('p', { class: 'empty', hidden: true }, 'No kept call matches the filter.');
  const body = h('tbody');
  const table = scrollTable('Kept calls', ['Time', 'Method', 'Path', 'Status', 'Code', 'Duration', 'Replay', 'Call'], body);
  const more = h('button', { type: 'button', class: 'more', hidden: true }, 'Older calls');
  const detail = h('div', { class: 'history-detail' });
  const refresh = h('button', { type: 'button', class: 'refresh' }, 'Refresh');

  const fetchPage = async (cursor: string | undefined): Promise<HistoryListing | undefined> => {
    const query = queryOf(applied);
    query.set('limit', String(PAGE));
    if (cursor !== undefined) query.set('cursor', cursor);
    const answer = await api.get<HistoryListing>(`history?${query.toString()}`);
    if (!answer.ok) {
      problem.hidden = false;
      problem.textContent = `Could not load the kept calls: ${errorText(answer.error)}`;
      return undefined;
    }
    problem.hidden = true;
    return answer.data;
  };
  const showPage = (listing: HistoryListing, append: boolean): void => {
    const rows = listing.entries.map(entryRow);
    if (append) body.append(...rows);
    else body.replaceChildren(...rows);
    next = listing.next;
    more.hidden = next === undefined;
    const shown = body.rows.length;
    table.hidden = shown === 0;
    empty.hidden = shown > 0;
    count.textContent = `${shown} call${shown === 1 ? '' : 's'}${next === undefined ? '' : ', older ones on the next page'}`;
  };
  const load = coalesced(async () => {
    refresh.disabled = true;
    const listing = await fetchPage(undefined);
    refresh.disabled = false;
    if (listing !== undefined) showPage(listing, false);
  });

  const open = async (id: string): Promise<void> => {
    opened = id;
    detail.replaceChildren(h('p', { class: 'loading' }, 'Opening the call…'));
    const answer = await api.get<HistoryEntryDto>(`history/${encodeURIComponent(id)}`);
    if (opened !== id) return;
    detail.replaceChildren(answer.ok
      ? entryView(api, answer.data, () => { void load(); })
      : h('p', { class: 'issue', role: 'alert' }, `Could not open the call: ${errorText(answer.error)}`));
    detail.scrollIntoView({ block: 'start' });
  };

  const form = historyFilterForm(() => {
    applied = form.read();
    void load();
  });
  const bulk = bulkPanel(api, () => applied, () => { void load(); });
  more.addEventListener('click', () => {
    more.disabled = true;
    void fetchPage(next).then((listing) => {
      more.disabled = false;
      if (listing !== undefined) showPage(listing, true);
    });
  });
  refresh.addEventListener('click', () => { void load(); });
  table.hidden = true;

  const element = h('section', { class: 'section history', 'aria-labelledby': 'history-title' },
    h('div', { class: 'section-head' }, h('h2', { id: 'history-title' }, 'History'), refresh),
    h('p', { class: 'hint' }, 'The calls the middleware keeps (its history option), newest first: what each sent, with credentials shown as [redacted], and what it got. Open a call to see it and replay it.'),
    form.element, count, problem, empty, table, more, bulk.element, detail);
  return {
    element,
    show(argument) {
      if (!started) {
        started = true;
        void load();
        void bulk.load();
      }
      if (argument === undefined) {
        opened = undefined;
        detail.replaceChildren();
      } else if (argument !== opened) {
        void open(argument);
      }
    },
    event(event) {
      if (event.type === 'replay' && started) bulk.progress(event.progress);
    },
    reconnected() {
      if (!started) return;
      void load();
      void bulk.load();
    },
  };
}
