/**
 * One kept call, opened: what it sent (query, headers, path parameters, body folded as JSON; files as rows of name,
 * type and size) and what it got (status, code, answer, error), its links (the call it replays, its wait, its job),
 * and its Replay. A call replayed before is replayed again only after a second, explicit confirmation: the server
 * refuses the first request (409) and the page asks, so that a double click never runs it twice.
 */
import type { ApiError, HistoryDataDto, HistoryEntryDto, ReplayResultDto } from '../protocol.js';
import { errorText, type ConsoleApi } from './api.js';
import { announce, h } from './dom.js';
import { dateTime, duration } from './format.js';
import { jsonView } from './json-view.js';

/** Where a call or a replay links: the History section opened at that call. */
export const entryHref = (id: string): string => `#history/${encodeURIComponent(id)}`;

/** Credentials were replaced before the call was kept: their value is shown for what it is. */
function markRedacted(view: HTMLElement): HTMLElement {
  for (const value of view.querySelectorAll('.json-string')) {
    if (value.textContent === '"[redacted]"') {
      value.classList.add('redacted');
      value.setAttribute('title', 'Not kept: a credential');
    }
  }
  return view;
}

function part(title: string, value: Record<string, unknown>): HTMLElement {
  return h('div', { class: 'history-part' }, h('h4', {}, title),
    Object.keys(value).length === 0 ? h('p', { class: 'empty' }, 'None.') : markRedacted(jsonView(value, title)));
}

function bodyPart(data: HistoryDataDto): HTMLElement {
  const size = `${data.bodySize} B${data.bodyKind === undefined ? '' : ` of ${data.bodyKind}`}`;
  const shown = data.bodyKept === 'whole'
    ? markRedacted(jsonView(data.body, 'Body'))
    : data.bodyKept === 'truncated'
      ? h('div', {}, h('p', { class: 'note' }, `Larger than history keeps (${size}): the start of its JSON text.`), h('pre', { class: 'values' }, String(data.body ?? '')))
      : h('p', { class: 'empty' }, data.bodySize === 0 ? 'No body.' : `Not kept (${size}): history keeps bodies only with bodyBytes set.`);
  return h('div', { class: 'history-part' }, h('h4', {}, 'Body'), data.bodyKept === 'whole' ? h('p', { class: 'sub' }, size) : null, shown);
}

function filesPart(data: HistoryDataDto): HTMLElement | null {
  if (data.files.length === 0) return null;
  return h('div', { class: 'history-part' }, h('h4', {}, 'Files'),
    h('table', { class: 'history-files' }, h('thead', {}, h('tr', {}, ...['Property', 'Name', 'Type', 'Size'].map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, ...data.files.map((file) => h('tr', { class: 'history-file' },
        h('td', {}, file.property), h('td', {}, file.fileName ?? '(no file name)'), h('td', {}, file.mimeType), h('td', {}, `${file.size} B`))))));
}

/** PAYLOAD_INVALID: each place the body did not match its schema and what was expected there. */
function payloadErrors(errors: ApiError['errors']): HTMLElement | null {
  if (errors === undefined || errors.length === 0) return null;
  return h('ul', { class: 'payload-errors', 'aria-label': 'Where the payload did not match its schema' },
    ...errors.map((one) => h('li', {}, h('code', {}, one.path), ` ${one.message}`)));
}

function errorPart(error: HistoryDataDto['error']): HTMLElement | null {
  if (error === undefined) return null;
  const cause = error.cause === undefined ? null : h('p', { class: 'issue-cause' }, `The workflow threw: ${error.cause}`);
  return h('div', { class: 'history-error' }, h('p', { class: 'issue' }, h('code', {}, error.code), ` ${error.message}`), cause, payloadErrors(error.errors));
}

function outcomePart(entry: HistoryEntryDto): HTMLElement {
  const { data } = entry;
  return h('div', { class: 'history-part' }, h('h4', {}, 'Answer'),
    data.answer === undefined ? h('p', { class: 'empty' }, 'No answer kept.') : markRedacted(jsonView(data.answer, 'Answer')),
    data.answerKept === 'truncated' ? h('p', { class: 'note' }, 'Larger than history keeps: the start of its JSON text.') : null,
    errorPart(data.error));
}

function facts(entry: HistoryEntryDto): HTMLElement {
  const rows: [string, Node | string][] = [
    ['Arrived', dateTime(entry.at)],
    ['Workflow', `${entry.workflowId} · ${entry.nodeName}`],
    ['Address', entry.route],
    ['Status', entry.status === undefined ? 'No answer went out' : String(entry.status)],
    ['Duration', duration(entry.durationMs)],
    ['Request id', h('code', { class: 'call-id' }, entry.requestId)],
  ];
  if (entry.code !== undefined) rows.push(['Code', h('code', {}, entry.code)]);
  if (entry.instance !== undefined) rows.push(['Instance', entry.instance]);
  if (entry.replayOf !== undefined) rows.push(['Replay of', h('a', { class: 'original', href: entryHref(entry.replayOf) }, entry.replayOf)]);
  if (entry.replayedBy !== undefined) rows.push(['Replayed by', entry.replayedBy]);
  if (entry.replays > 0) rows.push(['Replayed', `${entry.replays} time${entry.replays === 1 ? '' : 's'}`]);
  if (entry.waitId !== undefined) rows.push(['Resumed wait', h('code', {}, entry.waitId)]);
  if (entry.jobId !== undefined) rows.push(['Queue job', h('code', {}, entry.jobId)]);
  return h('dl', { class: 'history-facts' }, ...rows.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)]));
}

/** The Replay button and what it says; `replayed` is told of each replay that ran (the list then loads again). */
function replayControls(api: ConsoleApi, entry: HistoryEntryDto, replayed: () => void): HTMLElement {
  const replay = h('button', { type: 'button', class: 'primary replay' }, 'Replay');
  const result = h('div', { class: 'replay-result', role: 'status' });
  const again = h('button', { type: 'button', class: 'replay-again' }, 'Replay again');
  const cancel = h('button', { type: 'button', class: 'cancel' }, 'Cancel');
  const question = h('p', {});
  const confirm = h('div', { class: 'replay-confirm notice', role: 'alertdialog', 'aria-label': 'Replay this call again?', hidden: true }, question, h('div', { class: 'toolbar' }, again, cancel));

  const send = async (repeat: boolean): Promise<void> => {
    replay.disabled = true;
    again.disabled = true;
    confirm.hidden = true;
    result.textContent = 'Replaying…';
    const answer = await api.post<ReplayResultDto>(`history/${encodeURIComponent(entry.id)}/replay`, repeat ? { again: true } : {});
    replay.disabled = false;
    again.disabled = false;
    if (!answer.ok && answer.error.code === 'HISTORY_REPLAYED_BEFORE') {
      result.textContent = '';
      question.textContent = `${answer.error.message} Replaying it again runs its workflow once more.`;
      confirm.hidden = false;
      again.focus();
      return;
    }
    if (!answer.ok) {
      result.replaceChildren(h('p', { class: 'issue' }, `Not replayed: ${errorText(answer.error)}`), payloadErrors(answer.error.errors) ?? '');
      announce('The call was not replayed');
      return;
    }
    const done = answer.data;
    result.replaceChildren(h('p', { class: done.error === undefined ? 'replayed' : 'issue' },
      `Replayed${done.status === undefined ? '' : `: ${done.status}`}${done.code === undefined ? '' : ` ${done.code}`}. `,
      h('a', { class: 'replay-entry', href: entryHref(done.entryId) }, 'Open the replay'),
      done.jobId === undefined ? null : h('span', { class: 'sub' }, `Queue job ${done.jobId}`)), errorPart(done.error) ?? '');
    announce('The call was replayed');
    replayed();
  };
  replay.addEventListener('click', () => { void send(false); });
  again.addEventListener('click', () => { void send(true); });
  cancel.addEventListener('click', () => {
    confirm.hidden = true;
    replay.focus();
  });
  return h('div', { class: 'replay-controls' },
    h('p', { class: 'hint' }, 'Replay runs this call again through its webhook as active now: its guards are not checked again (you are recorded instead), its payload schema is.'),
    replay, confirm, result);
}

export function entryView(api: ConsoleApi, entry: HistoryEntryDto, replayed: () => void): HTMLElement {
  return h('article', { class: 'history-entry-detail', 'aria-labelledby': `entry-${entry.id}`, 'data-entry-id': entry.id },
    h('h3', { id: `entry-${entry.id}` }, h('span', { class: 'method' }, entry.method), ' ', h('code', {}, entry.path)),
    facts(entry),
    replayControls(api, entry, replayed),
    h('div', { class: 'results' },
      h('section', { class: 'pane', 'aria-label': 'Request' }, h('h3', {}, 'Request'),
        part('Query', entry.data.query), part('Headers', entry.data.headers), part('Path parameters', entry.data.params), bodyPart(entry.data), filesPart(entry.data)),
      h('section', { class: 'pane', 'aria-label': 'Outcome' }, h('h3', {}, 'Outcome'), outcomePart(entry))));
}
