/**
 * The Failed runs section (queue mode): the jobs whose workflow failed every attempt, with their error, and a Retry
 * for each that follows the job until it settles (completed, or failed again with its new reason). A `jobs` event
 * (a retry here or on another page) loads the list again; a row being followed stays until its job settles, its
 * attempt count and time following the job too. Each row says what its caller was answered, by the node's response
 * mode: an onReceived caller when the call was queued, a lastNode or responseNode caller from the last attempt.
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

/** What the caller of a failed job was answered, by its node's response mode (docs/queue.md: Retries and failures). */
const CALLER_GOT: Record<NonNullable<FailedJobDto['responseMode']>, string> = {
  onReceived: 'answered when the call was queued',
  lastNode: 'waited for the result: answered from the last attempt (500), or 524 once the deadline passed',
  responseNode: 'waited for the response: answered from the last attempt (500 unless it responded first), or 524 once the deadline passed',
};

/** The cells a job's progress changes: its state, attempts and when its latest attempt ended. */
interface JobCells { state: HTMLElement; attempts: HTMLElement; finished: HTMLElement }

const wait = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms); });

/** Polls the job until it settles or a minute passed, saying each state in the row. */
async function follow(api: ConsoleApi, row: JobRow, cells: JobCells): Promise<void> {
  const { state } = cells;
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
    cells.attempts.textContent = String(last.attemptsMade);
    if (last.finishedAt !== undefined) cells.finished.replaceChildren(dateTime(last.finishedAt));
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
  const table = scrollTable('Failed runs', ['Workflow', 'Node', 'Method', 'Call id', 'Caller', 'Attempts', 'Error', 'Finished', 'State', 'Action'], body);
  let rows: JobRow[] = [];
  let started = false;

  const makeRow = (job: FailedJobDto): JobRow => {
    const state = h('td', { class: 'job-state' }, 'failed');
    const attempts = h('td', { class: 'attempts' }, String(job.attemptsMade));
    const finished = h('td', { class: 'finished' }, dateTime(job.finishedAt ?? job.storedAt));
    const retry = h('button', { type: 'button', class: 'retry' }, 'Retry');
    const element = h('tr', { class: 'job', 'data-job-id': job.jobId },
      h('td', {}, h('span', { class: 'workflow-name' }, job.workflowName ?? job.workflowId), job.workflowName === undefined ? null : h('span', { class: 'sub' }, job.workflowId)),
      h('td', {}, job.nodeName),
      h('td', {}, h('span', { class: 'method' }, job.method)),
      h('td', {}, h('code', { class: 'call-id' }, job.callId)),
      h('td', { class: 'caller' }, job.responseMode === undefined ? '—' : CALLER_GOT[job.responseMode]),
      attempts,
      h('td', { class: 'reason' }, job.failedReason ?? '—'),
      finished,
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
          await follow(api, row, { state, attempts, finished });
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
    h('p', { class: 'hint' }, 'Queued calls whose workflow failed on every attempt. Caller says what each call\'s caller was answered, by the node\'s response mode: onReceived when the call was queued, lastNode and responseNode from the last attempt. Retry runs the workflow again with the same item; its result reaches no caller. The item itself is not shown: it holds whatever the caller sent.'),
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
