/**
 * One Webhook node of the workflow shown: its production and test addresses as full URLs with copy buttons (kept
 * current while its parameters are edited), its parameters as the form rendered from the node's description, the
 * node's hints, and Save, which stores the parameters and activates an active workflow again.
 */
import type { NodeDescription } from 'workflow-webhooks/definitions';
import type { Address, Addresses, NodeSummary, WorkflowSummary } from '../protocol.js';
import { call } from './api.js';
import { copyButton, h } from './dom.js';
import { NodeForm } from './form/form.js';
import { hintsList, nodeHints } from './hints-view.js';

export interface NodePanel {
  element: HTMLElement;
  name: string;
  parameters(): Record<string, unknown>;
  /** The hint lists and addresses follow the parameters entered. */
  onChange(listener: () => void): void;
}

function addressRow(kind: 'production' | 'test', address: Address, served: string): HTMLElement {
  const title = kind === 'production' ? 'Production address' : 'Test address';
  return h('div', { class: 'address', 'data-address': kind },
    h('span', { class: 'address-kind' }, title),
    h('span', { class: 'methods' }, ...address.methods.map((method) => h('span', { class: 'method' }, method))),
    h('code', { class: 'url' }, address.url),
    copyButton(() => address.url, `${kind} address`),
    h('span', { class: 'served' }, served));
}

function addressesView(addresses: Addresses, workflow: WorkflowSummary, dirty: boolean): HTMLElement[] {
  if (addresses.issue !== undefined) return [h('p', { class: 'issue', role: 'alert' }, `No addresses: ${addresses.issue}`)];
  const production = workflow.kind === 'draft'
    ? 'A draft is never served here; only its test address listens.'
    : workflow.active ? (dirty ? 'Served with the saved parameters until you save.' : 'Served while the workflow is active.') : 'Not served: the workflow is inactive.';
  return [
    ...addresses.production.map((address) => addressRow('production', address, production)),
    ...addresses.test.map((address) => addressRow('test', address, 'Takes one call while the page listens (Test, below).')),
  ];
}

/**
 * Parameters and Settings as tabs, as the platform shows a node's settings apart. The tab not chosen is taken off
 * the page, not hidden, so each label on the page is one field ("HTTP Method" and the setting "Allow Multiple HTTP
 * Methods" never answer to the same search).
 */
function tabs(idBase: string, panels: [string, HTMLElement][]): HTMLElement {
  const panel = h('div', { role: 'tabpanel', class: 'tab-panel' });
  const buttons = panels.map(([title], index) => h('button', {
    type: 'button', role: 'tab', id: `${idBase}-tab-${index}`, 'aria-controls': `${idBase}-panel`, tabindex: index === 0 ? 0 : -1,
  }, title));
  const choose = (index: number, focus: boolean): void => {
    buttons.forEach((button, other) => {
      button.setAttribute('aria-selected', String(other === index));
      button.tabIndex = other === index ? 0 : -1;
    });
    panel.setAttribute('aria-labelledby', buttons[index]!.id);
    panel.replaceChildren(panels[index]![1]);
    if (focus) buttons[index]!.focus();
  };
  buttons.forEach((button, index) => {
    button.addEventListener('click', () => choose(index, false));
    button.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (step !== 0) choose((index + step + buttons.length) % buttons.length, true);
    });
  });
  panel.id = `${idBase}-panel`;
  choose(0, false);
  return h('div', { class: 'tabs' }, h('div', { role: 'tablist', 'aria-label': 'Node panels' }, ...buttons), panel);
}

export function nodePanel(workflow: WorkflowSummary, node: NodeSummary, description: NodeDescription): NodePanel {
  const listeners: (() => void)[] = [];
  const addressList = h('div', { class: 'address-list' });
  const hints = h('div', { class: 'node-hints' });
  const saveStatus = h('p', { class: 'save-status', role: 'status' });
  let saved = '';
  let timer: number | undefined;

  let shownAddresses = node.addresses;
  const showAddresses = (addresses: Addresses): void => {
    shownAddresses = addresses;
    addressList.replaceChildren(...addressesView(addresses, workflow, JSON.stringify(form.values()) !== saved));
  };
  // The Active switch changed whether the production address is served: its note follows.
  document.addEventListener('workflow-state', (event) => {
    if ((event as CustomEvent<string>).detail === workflow.workflowId && element.isConnected) showAddresses(shownAddresses);
  });
  const showHints = (): void => {
    hints.replaceChildren(hintsList(nodeHints(description.hints ?? [], 'ndv', false, form.values())) ?? '');
  };
  const changed = (): void => {
    showHints();
    for (const listener of listeners) listener();
    // The addresses the parameters would give: the server resolves them as activation would (paths normalised).
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      void call<Addresses>('POST', `/api/editor/workflows/${encodeURIComponent(workflow.workflowId)}/nodes/${encodeURIComponent(node.name)}/addresses`, form.values())
        .then((answer) => { if (answer.ok) showAddresses(answer.data); });
    }, 150);
  };
  const form: NodeForm = new NodeForm(description.properties, { values: node.parameters, onChange: changed, separateSettings: true });
  // Compared as the form reads them (defaults filled in), so that an untouched form is not "changed".
  saved = JSON.stringify(form.values());

  const save = async (): Promise<void> => {
    const issues = form.validateAll();
    if (issues > 0) {
      saveStatus.className = 'save-status error';
      saveStatus.textContent = `Not saved: ${issues} ${issues === 1 ? 'value needs' : 'values need'} a fix first (shown under ${issues === 1 ? 'its field' : 'their fields'}).`;
      return;
    }
    saveStatus.className = 'save-status';
    saveStatus.textContent = 'Saving…';
    const answer = await call<{ workflow: WorkflowSummary; reactivated: boolean }>('PUT',
      `/api/editor/workflows/${encodeURIComponent(workflow.workflowId)}/nodes/${encodeURIComponent(node.name)}`, form.values());
    if (!answer.ok) {
      saveStatus.className = 'save-status error';
      saveStatus.textContent = `Not saved: ${answer.error.message}${answer.error.hint === undefined ? '' : ` ${answer.error.hint}`}`;
      return;
    }
    saved = JSON.stringify(form.values());
    // The page's copy of the workflow too, so that choosing it again later shows what was saved.
    workflow.nodes = answer.data.workflow.nodes;
    const stored = answer.data.workflow.nodes.find((one) => one.name === node.name);
    if (stored !== undefined) showAddresses(stored.addresses);
    saveStatus.className = 'save-status ok';
    saveStatus.textContent = answer.data.reactivated
      ? 'Saved. The workflow is active, so it was activated again: its production address serves these parameters now.'
      : workflow.kind === 'draft' ? 'Saved. A draft only listens for test events.' : 'Saved. Activate the workflow to serve these parameters.';
  };

  showAddresses(node.addresses);
  showHints();
  const headingId = `node-${node.name.replace(/\W+/g, '-')}`;
  const element = h('section', { class: 'node-panel', 'aria-labelledby': headingId },
    h('h3', { id: headingId }, `Webhook node “${node.name}”`),
    h('div', { class: 'addresses' }, h('h4', {}, 'Addresses'), addressList),
    hints,
    h('form', { class: 'parameters', novalidate: true, onsubmit: (event: Event) => { event.preventDefault(); void save(); } },
      tabs(headingId, [['Parameters', form.element], ['Settings', form.settingsElement ?? h('p', { class: 'empty' }, 'No settings.')]]),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save'), saveStatus)));
  return {
    element,
    name: node.name,
    parameters: () => form.values(),
    onChange: (listener) => { listeners.push(listener); },
  };
}
