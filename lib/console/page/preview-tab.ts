/**
 * The Preview section: a node description pasted, dropped as a file, or picked from the examples, rendered as the
 * node's parameter form, with its lint findings (validateNodeDescription, run by the server) beside it. Each finding
 * names its JSON pointer; selecting it focuses the field it is about. The page loads this module (with the form
 * renderer) only when the section is first shown.
 */
import type { NodeDescription } from 'workflow-webhooks/definitions';
import type { ExampleDto, FindingDto, LintAnswer } from '../protocol.js';
import { errorText, type ConsoleApi } from './api.js';
import { h, newId } from './dom.js';
import { NodeForm } from './form/form.js';
import type { NodeMethods, SearchResult } from './form/types.js';
import { hintsList, nodeHints } from './hints-view.js';
import { firstShow, type ConsoleContext, type Section } from './section.js';

function nodeMethods(api: ConsoleApi): NodeMethods {
  return {
    async listSearch(method, filter) {
      const answer = await api.post<{ results: SearchResult[] }>(`preview/methods/listSearch/${encodeURIComponent(method)}`, { filter });
      return answer.ok ? answer.data : { error: errorText(answer.error) };
    },
    async resourceMapping(method, parameters) {
      const answer = await api.post<unknown>(`preview/methods/resourceMapping/${encodeURIComponent(method)}`, { parameters });
      return answer.ok ? answer.data : { error: errorText(answer.error) };
    },
  };
}

/** Where JSON.parse stopped, as line and column, so that a pasted description can be fixed. */
function parseError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message)?.[1];
  if (position === undefined) return `Not valid JSON: ${message}`;
  const before = text.slice(0, Number(position)).split('\n');
  return `Not valid JSON at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}: ${message}`;
}

function findingsSummary(findings: FindingDto[]): string {
  if (findings.length === 0) return 'No findings: the description is valid.';
  const errors = findings.filter((finding) => finding.severity === 'error').length;
  const warnings = findings.length - errors;
  return `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
}

export function previewSection({ api }: ConsoleContext): Section {
  const methods = nodeMethods(api);
  const picker = h('select', { id: newId('example') }, h('option', { value: '' }, 'Pasted or dropped description'));
  const source = h('textarea', { id: newId('source'), class: 'code source', rows: 18, spellcheck: 'false' });
  const sourceStatus = h('p', { class: 'hint', 'aria-live': 'polite' }, 'Paste a node description (JSON) or drop a .json file here.');
  const findingsList = h('ol', { class: 'findings' });
  const findingsStatus = h('p', { class: 'findings-status', role: 'status' });
  const focusNote = h('p', { class: 'hint', 'aria-live': 'polite' });
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const rendered = h('div', { class: 'rendered' });
  const hints = h('div', { class: 'node-hints' });
  const valuesView = h('pre', { class: 'values', tabindex: 0 });
  let examples: ExampleDto[] = [];
  let form: NodeForm | undefined;
  let round = 0;

  const focusFinding = (finding: FindingDto): void => {
    const outcome = form?.focus(finding.path) ?? { missing: finding.path };
    focusNote.textContent = 'focused' in outcome ? ''
      : 'hidden' in outcome ? `${finding.path} is about a field the values entered hide (its displayOptions); change what it depends on to see it.`
        : `${finding.path} is about no field on the form (the description as a whole, or a part that is not rendered).`;
  };
  const showFindings = (findings: FindingDto[]): void => {
    findingsStatus.textContent = findingsSummary(findings);
    findingsList.replaceChildren(...findings.map((finding) => h('li', { class: `finding finding-${finding.severity}` },
      h('button', { type: 'button', class: 'finding-button', 'data-path': finding.path, onclick: () => focusFinding(finding) },
        h('span', { class: 'severity' }, finding.severity), ' ', h('code', { class: 'pointer' }, finding.path), ' ', h('span', { class: 'code' }, finding.code)),
      h('p', { class: 'finding-message' }, finding.message))));
  };

  const render = async (): Promise<void> => {
    round += 1;
    const mine = round;
    let description: unknown;
    try {
      description = JSON.parse(source.value);
    } catch (error) {
      sourceStatus.textContent = parseError(source.value, error);
      sourceStatus.classList.add('error');
      return;
    }
    sourceStatus.classList.remove('error');
    sourceStatus.textContent = 'Rendered.';
    const lint = await api.post<LintAnswer>('preview/lint', description);
    if (mine !== round) return;
    if (lint.ok) showFindings(lint.data.findings);
    else findingsStatus.textContent = `Could not lint: ${errorText(lint.error)}`;
    const node = (typeof description === 'object' && description !== null ? description : {}) as Partial<NodeDescription>;
    const version = typeof node.version === 'number' ? node.version : Array.isArray(node.version) ? node.version.at(-1) : undefined;
    const showValues = (values: Record<string, unknown>): void => {
      valuesView.textContent = JSON.stringify(values, null, 2);
      const all = node.hints ?? [];
      hints.replaceChildren(hintsList([...nodeHints(all, 'ndv', false, values), ...nodeHints(all, 'inputPane', false, values), ...nodeHints(all, 'outputPane', false, values)]) ?? '');
    };
    form = new NodeForm(node.properties ?? [], { methods, ...(version === undefined ? {} : { version }), onChange: showValues });
    // A form element, as browsers expect around password fields; nothing submits it.
    rendered.replaceChildren(h('h4', { class: 'node-name' }, typeof node.displayName === 'string' ? node.displayName : 'Node'),
      h('form', { novalidate: true, onsubmit: (event: Event) => event.preventDefault() }, form.element));
    showValues(form.values());
  };

  let timer: number | undefined;
  source.addEventListener('input', () => {
    picker.value = '';
    clearTimeout(timer);
    timer = window.setTimeout(() => { void render(); }, 300);
  });
  source.addEventListener('dragover', (event) => event.preventDefault());
  source.addEventListener('drop', (event) => {
    const file = event.dataTransfer?.files[0];
    if (file === undefined) return;
    event.preventDefault();
    void file.text().then((text) => {
      source.value = text;
      picker.value = '';
      sourceStatus.textContent = `Dropped ${file.name}.`;
      void render();
    });
  });
  const pick = (id: string): void => {
    const example = examples.find((one) => one.id === id);
    if (example === undefined) return;
    picker.value = id;
    source.value = JSON.stringify(example.description, null, 2);
    void render();
  };
  picker.addEventListener('change', () => pick(picker.value));

  const load = async (): Promise<void> => {
    const answer = await api.get<ExampleDto[]>('preview/examples');
    if (!answer.ok) {
      problem.hidden = false;
      problem.textContent = `Could not load the examples: ${errorText(answer.error)}`;
      return;
    }
    examples = answer.data;
    picker.append(...examples.map((example) => h('option', { value: example.id }, example.title)));
    pick(examples[0]?.id ?? '');
  };

  const element = h('section', { class: 'section preview', 'aria-labelledby': 'preview-title' },
    h('h2', { id: 'preview-title' }, 'Node parameter preview'),
    h('p', { class: 'hint' }, 'How an editor renders a node’s parameters from its description, with the findings of the description’s lint.'),
    problem,
    h('div', { class: 'preview-layout' },
      h('section', { class: 'source-pane', 'aria-labelledby': 'source-title' },
        h('h3', { id: 'source-title' }, 'Node description'),
        h('div', { class: 'cell' }, h('label', { for: picker.id }, 'Example'), picker),
        h('div', { class: 'cell' }, h('label', { for: source.id }, 'Description (JSON)'), source), sourceStatus,
        h('h3', { id: 'findings-title' }, 'Lint findings'), findingsStatus, focusNote, findingsList),
      h('section', { class: 'form-pane', 'aria-labelledby': 'form-title' },
        h('h3', { id: 'form-title' }, 'Rendered form'), hints, rendered,
        h('details', { class: 'values-box' }, h('summary', {}, 'Parameters as entered (JSON)'), valuesView))));
  return {
    element,
    show: firstShow(load).show,
  };
}
