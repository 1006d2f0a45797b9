/**
 * Listen for test event: starts a test listen with the parameters on the page, and shows its state as the server
 * pushes it over server-sent events (the countdown every second, the call's arrival, the workflow's output, the
 * end), so every tab open on the workflow sees the same listen. After a call: the trigger item (input pane) and
 * the workflow's output (output pane) as collapsible JSON, with the hints that apply to each. A run that waits for
 * a call shows its resume address, with a button that calls it.
 */
import type { NodeDescription } from 'workflow-webhooks/definitions';
import type { CountdownEvent, ListenState, RunDto, WaitDto } from '../protocol.js';
import { call } from './api.js';
import { h } from './dom.js';
import { hintsList, nodeHints, runHints } from './hints-view.js';
import { itemsView } from './json-view.js';
import { waitView } from './wait-view.js';

export interface TestPanelOptions {
  workflowId: string;
  description: NodeDescription;
  /** Each node's parameters as the page shows them now. */
  parameters(): Record<string, Record<string, unknown>>;
  /** The window to ask for, in seconds (the platform's 120 unless the page address says `?listenSeconds=`). */
  windowSeconds: number;
}

export interface TestPanel {
  element: HTMLElement;
  /** The parameters changed: the hints that depend on them are evaluated again. */
  parametersChanged(): void;
  close(): void;
}

function endText(state: Extract<ListenState, { state: 'ended' }>, windowSeconds: number): string {
  if (state.status === 'received') return state.run?.error === undefined ? 'Received a test call; the workflow ran.' : 'Received a test call; the workflow failed.';
  if (state.status === 'timedOut') return `No call arrived within the ${windowSeconds} s window, so the test address stopped listening. Listen again to capture one.`;
  return 'Listening was stopped before a call arrived. Listen again to capture one.';
}

export function testPanel(options: TestPanelOptions): TestPanel {
  const base = `/api/editor/workflows/${encodeURIComponent(options.workflowId)}`;
  const listenButton = h('button', { type: 'button', class: 'primary listen' }, 'Listen for test event');
  const cancelButton = h('button', { type: 'button', class: 'cancel', hidden: true }, 'Stop listening');
  const status = h('p', { class: 'listen-status', role: 'status' }, 'Not listening.');
  const countdown = h('span', { class: 'countdown', role: 'timer', 'aria-live': 'polite', 'aria-atomic': 'true' });
  const countdownLine = h('p', { class: 'countdown-line', hidden: true }, 'Time left: ', countdown);
  const meter = h('progress', { class: 'window', max: 1, value: 0, hidden: true, 'aria-hidden': 'true' });
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const results = h('div', { class: 'results' });
  const wait = waitView();
  let state: ListenState = { state: 'idle' };
  let lastRun: RunDto | undefined;
  let windowSeconds = options.windowSeconds;

  const pane = (title: string, place: 'inputPane' | 'outputPane', body: HTMLElement | null, run: RunDto | undefined): HTMLElement => {
    const ran = run !== undefined;
    const parameters = run === undefined ? {} : options.parameters()[run.nodeName] ?? {};
    const shown = [...nodeHints(options.description.hints ?? [], place, ran, ran ? parameters : firstNodeParameters()),
      ...(place === 'outputPane' && run?.output !== undefined ? runHints(run.output.hints, place) : [])];
    return h('section', { class: `pane ${place}`, 'aria-label': title }, h('h4', {}, title), hintsList(shown), body);
  };
  const firstNodeParameters = (): Record<string, unknown> => Object.values(options.parameters())[0] ?? {};

  /** The run's JSON views, built once per run: re-evaluating hints must not fold what the user unfolded. */
  let views: { run: RunDto | undefined; input: HTMLElement; output: HTMLElement } | undefined;
  const viewsOf = (run: RunDto | undefined): { input: HTMLElement; output: HTMLElement } => {
    if (views?.run === run && views !== undefined) return views;
    views = { run, ...buildViews(run) };
    return views;
  };
  const renderResults = (): void => {
    const run = lastRun;
    const { input, output } = viewsOf(run);
    results.replaceChildren(pane('Input: trigger item', 'inputPane', input, run), pane('Output', 'outputPane', output, run));
  };
  const buildViews = (run: RunDto | undefined): { input: HTMLElement; output: HTMLElement } => {
    const input = run === undefined
      ? h('p', { class: 'empty' }, 'The trigger item of the next test call shows here.')
      : h('div', {}, h('p', { class: 'item-title' }, `${run.method} call to node “${run.nodeName}”`), itemsView(run.trigger, 'Trigger items'));
    const output = run === undefined
      ? h('p', { class: 'empty' }, 'The workflow’s output shows here once it ran.')
      : run.error !== undefined ? h('p', { class: 'issue' }, `The workflow failed: ${run.error}`)
        : run.output === undefined ? h('p', { class: 'empty' }, 'The workflow is running…') : itemsView(run.output.items, 'Output items');
    return { input, output };
  };

  const show = (next: ListenState): void => {
    state = next;
    const listening = next.state === 'listening';
    listenButton.disabled = listening || next.state === 'running';
    cancelButton.hidden = !listening;
    countdownLine.hidden = !listening;
    meter.hidden = !listening;
    if (next.state === 'listening') {
      windowSeconds = next.windowSeconds;
      status.textContent = 'Listening for a test event. Call the test address above once.';
      tick(next.secondsLeft);
      lastRun = undefined;
    } else if (next.state === 'running') {
      status.textContent = 'Call received; the workflow is running…';
      lastRun = next.run;
    } else if (next.state === 'ended') {
      status.textContent = endText(next, windowSeconds);
      lastRun = next.run ?? (next.status === 'received' ? lastRun : undefined);
    } else {
      status.textContent = 'Not listening. Start listening, then call the test address once.';
    }
    renderResults();
  };
  const tick = (secondsLeft: number): void => {
    countdown.textContent = `${secondsLeft} s`;
    meter.max = windowSeconds;
    meter.value = secondsLeft;
  };

  const events = new EventSource(`${base}/test-events`);
  events.addEventListener('state', (event) => show(JSON.parse((event as MessageEvent<string>).data) as ListenState));
  events.addEventListener('countdown', (event) => {
    const data = JSON.parse((event as MessageEvent<string>).data) as CountdownEvent;
    if (state.state === 'listening' && state.listenId === data.listenId) tick(data.secondsLeft);
  });
  events.addEventListener('wait', (event) => wait.show(JSON.parse((event as MessageEvent<string>).data) as WaitDto | null));
  events.addEventListener('error', () => {
    // EventSource reconnects by itself; until then the page says it may be behind.
    if (events.readyState !== EventSource.OPEN) status.dataset.stale = 'true';
  });
  events.addEventListener('open', () => { delete status.dataset.stale; });

  listenButton.addEventListener('click', () => {
    problem.hidden = true;
    listenButton.disabled = true;
    void call<ListenState>('POST', `${base}/test-listens`, { nodes: options.parameters(), timeoutMs: options.windowSeconds * 1000 }).then((answer) => {
      if (answer.ok) {
        // The stream sends the same state; showing it now saves the wait when the stream is slow. When the stream
        // already told about this listen (maybe its call and end), the answer is older news.
        const listenId = 'listenId' in answer.data ? answer.data.listenId : undefined;
        if (!('listenId' in state) || state.listenId !== listenId) show(answer.data);
        return;
      }
      listenButton.disabled = false;
      problem.hidden = false;
      problem.textContent = `Could not listen: ${answer.error.message}${answer.error.hint === undefined ? '' : ` ${answer.error.hint}`}`;
    });
  });
  cancelButton.addEventListener('click', () => { void call('DELETE', `${base}/test-listens/current`); });

  renderResults();
  const element = h('section', { class: 'test-panel', 'aria-labelledby': 'test-title' },
    h('h3', { id: 'test-title' }, 'Test'),
    h('div', { class: 'listen-row' }, listenButton, cancelButton, meter),
    status, countdownLine, problem, wait.element, results);
  return {
    element,
    parametersChanged: () => { if (state.state !== 'running') renderResults(); },
    close: () => events.close(),
  };
}
