/**
 * Listen for test event, for one workflow: starts a listen, and shows the listen as the server pushes it to every
 * page (the countdown every second, the call's arrival, the workflow's output, the end), so every tab open on the
 * workflow sees the same listen, whichever tab started it. After a call: what it captured (run-view), and a run
 * that waits for a call shows its resume address. A test call its payload schema refused is shown with its errors.
 */
import type { NodeDescription } from 'workflow-webhooks/definitions';
import type { ListenSnapshot, ListenState, RunDto, WorkflowDto } from '../protocol.js';
import { errorText, type ConsoleApi } from './api.js';
import { h } from './dom.js';
import { nodeHints } from './hints-view.js';
import type { ListenStore } from './listen-store.js';
import { runView } from './run-view.js';
import { waitView } from './wait-view.js';

export interface ListenPanelOptions {
  api: ConsoleApi;
  workflow: WorkflowDto;
  store: ListenStore;
  /** The Webhook node's description with its hints, when the console serves it. */
  description: NodeDescription | undefined;
}

export interface ListenPanel {
  element: HTMLElement;
  /** Stops following the store (another workflow is shown). */
  close(): void;
}

function endText(state: Extract<ListenState, { state: 'ended' }>, windowSeconds: number | undefined): string {
  if (state.status === 'received') return state.run?.error === undefined ? 'Received a test call; the workflow ran.' : 'Received a test call; the workflow failed.';
  if (state.status === 'timedOut') {
    const window = windowSeconds === undefined ? 'its window' : `the ${windowSeconds} s window`;
    return `No call arrived within ${window}, so the test address stopped listening. Listen again to capture one.`;
  }
  return 'Listening was stopped before a call arrived. Listen again to capture one.';
}

export function listenPanel(options: ListenPanelOptions): ListenPanel {
  const { api, workflow, store } = options;
  const path = `workflows/${encodeURIComponent(workflow.workflowId)}/listen`;
  const listenButton = h('button', { type: 'button', class: 'primary listen' }, 'Listen for test event');
  const stopButton = h('button', { type: 'button', class: 'stop', hidden: true }, 'Stop listening');
  const status = h('p', { class: 'listen-status', role: 'status' });
  const countdown = h('span', { class: 'countdown', role: 'timer', 'aria-live': 'polite', 'aria-atomic': 'true' });
  const countdownLine = h('p', { class: 'countdown-line', hidden: true }, 'Time left: ', countdown);
  const meter = h('progress', { class: 'window', max: 1, value: 0, hidden: true, 'aria-hidden': 'true' });
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const wait = waitView();
  // A test call its payload schema refused: where and what was expected; the listen goes on for a call that matches.
  const refusedNote = h('div', { class: 'issue refused', role: 'status', hidden: true });
  const parametersOf = (run: RunDto | undefined): Record<string, unknown> =>
    (run === undefined ? workflow.nodes[0] : workflow.nodes.find((node) => node.name === run.nodeName))?.parameters ?? {};
  const results = runView({
    base: api.base,
    nodeHints: (place, run) => nodeHints(options.description?.hints ?? [], place, run !== undefined, parametersOf(run)),
  });
  let windowSeconds: number | undefined;
  let lastRun: RunDto | undefined;
  let busy = false;

  const tick = (secondsLeft: number): void => {
    countdown.textContent = `${secondsLeft} s`;
    meter.max = windowSeconds ?? Math.max(secondsLeft, 1);
    meter.value = secondsLeft;
  };

  const show = (snapshot: ListenSnapshot | undefined): void => {
    const state: ListenState = snapshot?.listen ?? { state: 'idle' };
    const listening = state.state === 'listening';
    listenButton.disabled = busy || listening || state.state === 'running';
    stopButton.hidden = !listening;
    countdownLine.hidden = !listening;
    meter.hidden = !listening;
    if (state.state === 'listening') {
      windowSeconds = state.windowSeconds;
      status.textContent = 'Listening for a test event… Call a test address above once.';
      tick(state.secondsLeft);
      lastRun = undefined;
    } else if (state.state === 'running') {
      status.textContent = 'Received a test call; the workflow is running…';
      lastRun = state.run;
    } else if (state.state === 'ended') {
      status.textContent = endText(state, windowSeconds);
      lastRun = state.run ?? (state.status === 'received' ? lastRun : undefined);
    } else {
      status.textContent = 'Not listening. Start listening, then call a test address once.';
    }
    results.show(lastRun);
    wait.show(snapshot?.wait ?? null);
    const refused = snapshot?.refused ?? null;
    refusedNote.hidden = refused === null || !listening;
    if (refused !== null) {
      refusedNote.replaceChildren(
        h('p', {}, `A test call${refused.nodeName === undefined ? '' : ` to node "${refused.nodeName}"`} was refused (422 PAYLOAD_INVALID): `
          + `${refused.message} Still listening for a call that matches.`),
        h('ul', {}, ...refused.errors.map((error) => h('li', {}, h('code', {}, error.path), ` ${error.message}`))),
      );
    }
  };

  const stopFollowing = store.subscribe((workflowId, change) => {
    if (workflowId !== workflow.workflowId) return;
    const snapshot = store.get(workflowId);
    if (change === 'countdown' && snapshot?.listen.state === 'listening') tick(snapshot.listen.secondsLeft);
    else show(snapshot);
  });

  const fail = (what: string, message: string): void => {
    problem.hidden = false;
    problem.textContent = `${what}: ${message}`;
  };

  listenButton.addEventListener('click', () => {
    problem.hidden = true;
    busy = true;
    listenButton.disabled = true;
    const mark = store.mark();
    void api.post<ListenSnapshot>(path, {}).then((answer) => {
      busy = false;
      if (answer.ok) store.fromAnswer(answer.data, mark);
      else fail('Could not listen', errorText(answer.error));
      show(store.get(workflow.workflowId));
    });
  });
  stopButton.addEventListener('click', () => {
    problem.hidden = true;
    stopButton.disabled = true;
    void api.post<{ cancelled: boolean }>(`${path}/stop`, {}).then((answer) => {
      stopButton.disabled = false;
      if (!answer.ok) fail('Could not stop listening', errorText(answer.error));
    });
  });

  show(store.get(workflow.workflowId));
  const element = h('section', { class: 'listen-panel', 'aria-labelledby': 'listen-panel-title' },
    h('h3', { id: 'listen-panel-title' }, 'Test event'),
    h('div', { class: 'listen-row' }, listenButton, stopButton, meter),
    status, countdownLine, problem, refusedNote, wait.element, results.element);
  return { element, close: stopFollowing };
}
