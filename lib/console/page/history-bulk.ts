/**
 * "Replay all matching": replays every kept call the History filter matches, at the rate the user sets, and follows
 * the bulk replay from the event stream (matched, replayed, failed, refused, skipped) with a progress bar and a Stop.
 * The page shows one bulk replay at a time: the one it started, else this instance's newest.
 */
import type { BulkReplayListing, BulkReplayProgressDto, HistoryFilterDto } from '../protocol.js';
import { errorText, type ConsoleApi } from './api.js';
import { announce, h, newId } from './dom.js';

const COUNTS = ['matched', 'replayed', 'failed', 'refused', 'skipped'] as const;
const STATE_TEXT: Record<BulkReplayProgressDto['state'], string> = { running: 'Running', done: 'Done', stopped: 'Stopped' };

export interface BulkPanel {
  element: HTMLElement;
  /** A `replay` event: the progress of a bulk replay of this instance. */
  progress(progress: BulkReplayProgressDto): void;
  /** Loads this instance's bulk replays and shows the newest (when the section opens, or the stream is back). */
  load(): Promise<void>;
}

export function bulkPanel(api: ConsoleApi, filter: () => HistoryFilterDto, ended: () => void): BulkPanel {
  const rate = h('input', { type: 'number', id: newId('bulk-rate'), class: 'bulk-rate', min: 0.1, max: 1000, step: 'any', value: 5 });
  const again = h('input', { type: 'checkbox', id: newId('bulk-again'), class: 'bulk-again' });
  const start = h('button', { type: 'button', class: 'primary bulk-start' }, 'Replay all matching');
  const stop = h('button', { type: 'button', class: 'bulk-stop', hidden: true }, 'Stop');
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const bar = h('progress', { class: 'bulk-progress', max: 1, value: 0 });
  const state = h('span', { class: 'bulk-state' });
  const numbers = Object.fromEntries(COUNTS.map((name) => [name, h('span', { class: 'bulk-count', 'data-count': name }, '0')])) as Record<typeof COUNTS[number], HTMLElement>;
  const stopReason = h('p', { class: 'issue', hidden: true });
  const status = h('div', { class: 'bulk-status', role: 'status', hidden: true },
    h('p', {}, state, ' · ', ...COUNTS.flatMap((name, index) => [index === 0 ? '' : ' · ', `${name} `, numbers[name]])), bar, stopReason);
  let shown: BulkReplayProgressDto | undefined;

  const show = (progress: BulkReplayProgressDto): void => {
    const wasRunning = shown?.id === progress.id && shown.state === 'running';
    shown = progress;
    status.hidden = false;
    state.textContent = STATE_TEXT[progress.state];
    state.dataset.state = progress.state;
    for (const name of COUNTS) numbers[name].textContent = String(progress[name]);
    const settled = progress.replayed + progress.failed + progress.refused + progress.skipped;
    bar.max = Math.max(1, progress.matched);
    bar.value = progress.state === 'running' ? settled : bar.max;
    bar.setAttribute('aria-valuetext', `${settled} of ${progress.matched} calls`);
    stopReason.hidden = progress.error === undefined;
    stopReason.textContent = progress.error ?? '';
    stop.hidden = progress.state !== 'running';
    start.disabled = progress.state === 'running';
    if (wasRunning && progress.state !== 'running') {
      announce(`Bulk replay ${STATE_TEXT[progress.state].toLowerCase()}: ${progress.replayed} replayed, ${progress.failed} failed`);
      ended();
    }
  };

  start.addEventListener('click', () => {
    const perSecond = Number(rate.value);
    if (!(perSecond > 0 && perSecond <= 1000)) {
      problem.hidden = false;
      problem.textContent = 'The rate is a number of replays a second above 0 and at most 1000.';
      return;
    }
    start.disabled = true;
    problem.hidden = true;
    void api.post<BulkReplayProgressDto>('history/replays', { filter: filter(), perSecond, again: again.checked }).then((answer) => {
      if (!answer.ok) {
        start.disabled = false;
        problem.hidden = false;
        problem.textContent = `Not started: ${errorText(answer.error)}`;
        return;
      }
      // Events of it may have come first: the later of the two is kept.
      if (shown?.id !== answer.data.id) show(answer.data);
    });
  });
  stop.addEventListener('click', () => {
    if (shown === undefined) return;
    stop.disabled = true;
    void api.post<BulkReplayProgressDto>(`history/replays/${encodeURIComponent(shown.id)}/stop`).then((answer) => {
      stop.disabled = false;
      if (!answer.ok) {
        problem.hidden = false;
        problem.textContent = `Not stopped: ${errorText(answer.error)}`;
      }
    });
  });

  const element = h('section', { class: 'bulk-replay', 'aria-labelledby': 'bulk-title' },
    h('h3', { id: 'bulk-title' }, 'Replay all matching'),
    h('p', { class: 'hint' }, 'Replays every kept call the filter matches now (as last applied with Find), through its webhook as active now, at the rate you set. Calls replayed before are skipped unless you include them.'),
    h('div', { class: 'toolbar' },
      h('div', { class: 'cell narrow' }, h('label', { for: rate.id }, 'Replays a second'), rate),
      h('label', { class: 'check', for: again.id }, again, ' Include calls replayed before'),
      start, stop),
    problem, status);
  return {
    element,
    progress(progress) {
      if (shown === undefined || shown.id === progress.id || progress.startedAt >= shown.startedAt) show(progress);
    },
    async load() {
      const answer = await api.get<BulkReplayListing>('history/replays');
      const newest = answer.ok ? answer.data.replays[0] : undefined;
      if (newest !== undefined && (shown === undefined || shown.id === newest.id || newest.startedAt >= shown.startedAt)) show(newest);
    },
  };
}
