/**
 * The /editor page: the app's workflows with an Active switch each (activating goes through the registry, and a
 * refusal such as an address conflict is shown with its message), and for the workflow chosen its Webhook nodes
 * (addresses, parameters) and the test panel. The chosen workflow is in the address (`/editor#signup`), so a
 * second tab can open the same one.
 */
import type { NodeDescription } from 'workflow-webhooks/definitions';
import type { WorkflowListing, WorkflowSummary } from '../protocol.js';
import { call, getJson } from './api.js';
import { h, screenReaderText } from './dom.js';
import { nodePanel } from './node-panel.js';
import { testPanel, type TestPanel } from './test-panel.js';

const main = document.getElementById('main')!;
const params = new URLSearchParams(location.search);
const listenSeconds = Math.min(120, Math.max(1, Number(params.get('listenSeconds') ?? 120) || 120));

function fail(message: string): void {
  main.replaceChildren(h('p', { class: 'issue', role: 'alert' }, message));
}

function stateText(workflow: WorkflowSummary): string {
  if (workflow.kind === 'draft') return 'Draft: test only';
  return workflow.active ? 'Active: production address served' : 'Inactive';
}

async function toggle(workflow: WorkflowSummary, input: HTMLInputElement, message: HTMLElement, state: HTMLElement): Promise<void> {
  const wanted = input.checked;
  input.disabled = true;
  message.hidden = true;
  const answer = await call(wanted ? 'PUT' : 'DELETE', `/api/editor/workflows/${encodeURIComponent(workflow.workflowId)}/active`);
  input.disabled = false;
  if (!answer.ok) {
    input.checked = !wanted;
    message.hidden = false;
    message.replaceChildren(h('strong', {}, wanted ? 'Not activated. ' : 'Not deactivated. '), answer.error.message,
      answer.error.hint === undefined ? '' : h('span', { class: 'conflict-hint' }, ` ${answer.error.hint}`));
    return;
  }
  workflow.active = wanted;
  state.textContent = stateText(workflow);
  document.dispatchEvent(new CustomEvent('workflow-state', { detail: workflow.workflowId }));
}

function workflowItem(workflow: WorkflowSummary, select: (id: string) => void): HTMLLIElement {
  const state = h('span', { class: 'state' }, stateText(workflow));
  const message = h('p', { class: 'issue', role: 'alert', hidden: true });
  const open = h('button', { type: 'button', class: 'workflow-name', 'data-workflow': workflow.workflowId, onclick: () => select(workflow.workflowId) }, workflow.workflowName);
  let activeSwitch: HTMLElement | null = null;
  if (workflow.kind === 'workflow') {
    const input = h('input', { type: 'checkbox', role: 'switch', checked: workflow.active });
    input.addEventListener('change', () => { void toggle(workflow, input, message, state); });
    activeSwitch = h('label', { class: 'switch' }, input, ' Active', screenReaderText(`: ${workflow.workflowName}`));
  }
  return h('li', { class: 'workflow', 'data-workflow-id': workflow.workflowId }, open, activeSwitch, state, message);
}

async function start(): Promise<void> {
  const [listing, description] = await Promise.all([getJson<WorkflowListing>('/api/editor/workflows'), getJson<NodeDescription>('/api/editor/node-types/webhook')]);
  if (!listing.ok) return fail(`Could not load the workflows: ${listing.error.message}`);
  const workflows = listing.data.workflows;
  if (!description.ok) return fail(`Could not load the Webhook node's description: ${description.error.message}`);
  const detail = h('div', { class: 'detail' });
  let panel: TestPanel | undefined;
  let current: string | undefined;

  const select = (workflowId: string): void => {
    const workflow = workflows.find((one) => one.workflowId === workflowId)
      ?? workflows.find((one) => one.workflowId === listing.data.startWith) ?? workflows[0];
    if (workflow === undefined || workflow.workflowId === current) return;
    current = workflow.workflowId;
    if (location.hash !== `#${workflow.workflowId}`) history.replaceState(null, '', `#${workflow.workflowId}`);
    for (const button of list.querySelectorAll<HTMLButtonElement>('.workflow-name')) {
      if (button.dataset.workflow === workflow.workflowId) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
    panel?.close();
    const nodes = workflow.nodes.map((node) => nodePanel(workflow, node, description.data));
    panel = testPanel({
      workflowId: workflow.workflowId,
      description: description.data,
      windowSeconds: listenSeconds,
      parameters: () => Object.fromEntries(nodes.map((node) => [node.name, node.parameters()])),
    });
    for (const node of nodes) node.onChange(() => panel?.parametersChanged());
    detail.replaceChildren(
      h('h2', { id: 'workflow-title' }, workflow.workflowName, h('span', { class: 'workflow-id' }, ` (${workflow.workflowId})`)),
      ...nodes.map((node) => node.element),
      panel.element);
  };

  const list = h('ul', { class: 'workflow-list' }, ...workflows.map((workflow) => workflowItem(workflow, select)));
  main.replaceChildren(h('div', { class: 'layout' },
    h('section', { class: 'workflows', 'aria-labelledby': 'workflows-title' }, h('h2', { id: 'workflows-title' }, 'Workflows'), list),
    detail));
  select(decodeURIComponent(location.hash.slice(1)));
  window.addEventListener('hashchange', () => select(decodeURIComponent(location.hash.slice(1))));
}

void start();
