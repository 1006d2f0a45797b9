/**
 * What a test listen captured, as an editor shows a test run: the trigger item (input pane) and the workflow's
 * output or error (output pane) as collapsible JSON with the hints that apply to each, and the captured call as a
 * curl command that sends it again. The JSON views are built once per call, so that a later change of state (the
 * output arriving) does not fold what the user unfolded. A run its caller waited for long (RunDto.slow) gets a
 * warning in the output pane; a fast one none.
 */
import type { RunDto } from '../protocol.js';
import { copyButton, h } from './dom.js';
import { duration } from './format.js';
import { hintsList, runHints, type ShownHint } from './hints-view.js';
import { itemsView } from './json-view.js';

type Place = 'inputPane' | 'outputPane';

export interface RunViewOptions {
  /** The console's mount path, for the download links of captured files. */
  base: string;
  /** The node description's hints for a pane: for the node that ran, or before a run. */
  nodeHints(place: Place, run: RunDto | undefined): ShownHint[];
}

export interface RunView {
  element: HTMLElement;
  /** The run to show; none: the panes say what they will hold. */
  show(run: RunDto | undefined): void;
}

function inputOf(run: RunDto | undefined, base: string): HTMLElement {
  if (run === undefined) return h('p', { class: 'empty' }, 'The trigger item of the next test call shows here.');
  return h('div', {}, h('p', { class: 'item-title' }, `${run.method} call to node “${run.nodeName}” (call id ${run.callId})`),
    itemsView(run.trigger, 'Trigger items', base, 'trigger'));
}

function outputOf(run: RunDto | undefined, base: string): HTMLElement {
  if (run === undefined) return h('p', { class: 'empty' }, 'The workflow’s output shows here once it ran.');
  if (run.error !== undefined) return h('p', { class: 'issue run-error' }, `The workflow failed: ${run.error}`);
  if (run.output === undefined) return h('p', { class: 'empty' }, 'The workflow is running…');
  return itemsView(run.output.items, 'Output items', base, 'output');
}

/** The warning for a run its caller waited for half the time it may wait or more; none for a faster run. */
function slowHints(run: RunDto | undefined): ShownHint[] {
  if (run?.slow === undefined) return [];
  const { waitedMs, limitMs } = run.slow;
  return [{
    type: 'warning', where: 'output pane', when: 'from this run',
    message: `The caller waited ${duration(waitedMs)} for this run, at least half of the ${duration(limitMs)} a caller may wait (the middleware's responseTimeoutMs, or a proxy's limit): a run that takes longer is cut off with 524. For long work, answer at once and let the caller poll.`,
  }];
}

/** Which state of a run a view shows: the same call with its output arrived is another view of the output. */
const outputKey = (run: RunDto | undefined): string => run === undefined ? '' : `${run.callId}:${run.output === undefined ? '' : 'o'}:${run.error ?? ''}`;

export function runView(options: RunViewOptions): RunView {
  const results = h('div', { class: 'results' });
  const curl = h('pre', { class: 'curl', tabindex: 0 });
  let shownCurl = '';
  const curlBox = h('section', { class: 'curl-box', 'aria-labelledby': 'curl-title', hidden: true },
    h('h4', { id: 'curl-title' }, 'The call as curl'),
    h('p', { class: 'hint' }, 'Sends the captured call again, to the test address: listen first. Credentials and files are placeholders in angle brackets: put the real values back, and the path of each file (download it above) in place of <path to …>: until then curl refuses to send the call.'),
    curl, copyButton(() => shownCurl, 'curl command', 'Copy curl'));
  let input: { key: string; element: HTMLElement } | undefined;
  let output: { key: string; element: HTMLElement } | undefined;

  const pane = (title: string, place: Place, body: HTMLElement, run: RunDto | undefined): HTMLElement => {
    const shown = [
      ...options.nodeHints(place, run),
      ...(place === 'outputPane' && run?.output !== undefined ? runHints(run.output.hints, place) : []),
      ...(place === 'outputPane' ? slowHints(run) : []),
    ];
    return h('section', { class: `pane ${place}`, 'aria-label': title }, h('h4', {}, title), hintsList(shown), body);
  };

  return {
    element: h('div', { class: 'run' }, results, curlBox),
    show(run) {
      const inputKey = run?.callId ?? '';
      if (input?.key !== inputKey) input = { key: inputKey, element: inputOf(run, options.base) };
      if (output?.key !== outputKey(run)) output = { key: outputKey(run), element: outputOf(run, options.base) };
      results.replaceChildren(pane('Input: trigger item', 'inputPane', input.element, run), pane('Output', 'outputPane', output.element, run));
      curlBox.hidden = run === undefined;
      if (run !== undefined && run.curl !== shownCurl) {
        shownCurl = run.curl;
        curl.textContent = run.curl;
      }
    },
  };
}
