/**
 * The Failed runs section (queue mode): the jobs whose workflow failed every attempt, with their error, and a Retry
 * for each that follows the job until it settles (completed, or failed again with its new reason). A `jobs` event
 * (a retry here or on another page) loads the list again; a row being followed stays until its job settles.
 */
import type { FailedJobDto, FailedJobListing, JobStateDto } from '../protocol.js';
import { errorText, type ConsoleApi } from './api.js';
import { announce, h, scrollTable } from './dom.js';
import { dateTime } from './format.js';
import { coalesced, type ConsoleContext, type Section } from './section.js';

const POLL_MS = 500;
const FOLLOW_MS = 60_000;
const SETTLED = new Set(['completed', 'failed']);

interface JobRow { job: FailedJobDto; element: HTMLTableRowElement; following: boolean }

const wait = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms); });

/** Polls the job until it settles or a minute passed, saying each state in the row. */
async function follow(api: ConsoleApi, row: JobRow, state: HTMLElement): Promise<void> {
  const path = `jobs/${encodeURIComponent(row.job.jobId)}`;
  const until = Date.now() + FOLLOW_MS;
  let last: JobStateDto | undefined;
  while (Date.now() < until) {
    await wait(POLL_MS);
    const answer = await api.get<JobStateDto>(path);
    if (!answer.ok) {
      state.textContent = `could not ask: ${errorText(answer.error)}`;
      continue;
    }
    last = answer.data;
    if (SETTLED.has(last.state)) break;
    state.textContent = `retrying… (${last.state})`;
  }
  if (last !== undefined && last.state === 'completed') {
    state.textContent = 'completed';
    state.dataset.state = 'completed';
  } else if (last !== undefined && last.state === 'failed') {
    state.textContent = `failed: ${last.failedReason ?? 'no reason given'}`;
    state.dataset.state = 'failed';
  } else {
    state.textContent = `still ${last?.state ?? 'unknown'} after ${FOLLOW_MS / 1000} s; refresh later to see how it ended`;
  }
  announce(`Job ${row.job.jobId}: ${state.textContent}`);
}

export function failedSection({ api }: ConsoleContext): Section {
  const refresh = h('button', { type: 'button', class: 'refresh' }, 'Refresh');
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const empty = h('p', { class: 'empty', hidden: true }, 'No failed runs: every queued call ran, or is still being tried.');
  const body = h('tbody');
  const table = scrollTable('Failed runs', ['Workflow', 'Node', 'Method', 'Call id', 'Attempts', 'Error', 'Finished', 'State', 'Action'], body);
  let rows: JobRow[] = [];
  let started = false;

  const makeRow = (job: FailedJobDto): JobRow => {
    const state = h('td', { class: 'job-state' }, 'failed');
    const retry = h('button', { type: 'button', class: 'retry' }, 'Retry');
    const element = h('tr', { class: 'job', 'data-job-id': job.jobId },
      h('td', {}, h('span', { class: 'workflow-name' }, job.workflowName ?? job.workflowId), job.workflowName === undefined ? null : h('span', { class: 'sub' }, job.workflowId)),
      h('td', {}, job.nodeName),
      h('td', {}, h('span', { class: 'method' }, job.method)),
      h('td', {}, h('code', { class: 'call-id' }, job.callId)),
      h('td', { class: 'attempts' }, String(job.attemptsMade)),
      h('td', { class: 'reason' }, job.failedReason ?? '—'),
      h('td', {}, dateTime(job.finishedAt ?? job.storedAt)),
      state,
      h('td', {}, retry));
    const row: JobRow = { job, element, following: false };
    retry.addEventListener('click', () => {
      retry.disabled = true;
      row.following = true;
      state.textContent = 'retrying…';
      delete state.dataset.state;
      void api.post<{ retried: boolean }>(`failed-jobs/${encodeURIComponent(job.jobId)}/retry`).then(async (answer) => {
        if (!answer.ok) {
          state.textContent = `not retried: ${errorText(answer.error)}`;
          retry.disabled = false;
        } else {
          await follow(api, row, state);
          // Failed again: it may be retried again, here, without waiting for the list to load again.
          retry.disabled = state.dataset.state !== 'failed';
        }
        row.following = false;
      });
    });
    return row;
  };

  const load = coalesced(async () => {
    refresh.disabled = true;
    const answer = await api.get<FailedJobListing>('failed-jobs');
    refresh.disabled = false;
    if (!answer.ok) {
      problem.hidden = false;
      problem.textContent = `Could not load the failed runs: ${errorText(answer.error)}`;
      return;
    }
    problem.hidden = true;
    const followed = rows.filter((row) => row.following);
    const followedIds = new Set(followed.map((row) => row.job.jobId));
    rows = [...followed, ...answer.data.jobs.filter((job) => !followedIds.has(job.jobId)).map(makeRow)];
    body.replaceChildren(...rows.map((row) => row.element));
    table.hidden = rows.length === 0;
    empty.hidden = rows.length > 0;
  });
  refresh.addEventListener('click', () => { void load(); });
  table.hidden = true;

  const element = h('section', { class: 'section failed', 'aria-labelledby': 'failed-title' },
    h('div', { class: 'section-head' }, h('h2', { id: 'failed-title' }, 'Failed runs'), refresh),
    h('p', { class: 'hint' }, 'Queued calls whose workflow failed on every attempt. The call was answered when it was queued; Retry runs the workflow again with the same item. The item itself is not shown: it holds whatever the caller sent.'),
    problem, empty, table);
  return {
    element,
    show: () => {
      started = true;
      void load();
    },
    event: (event) => { if (event.type === 'jobs' && started) void load(); },
    reconnected: () => { if (started) void load(); },
  };
}
