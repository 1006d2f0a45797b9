/**
 * The Listen section: the workflows the host lets the console test, one chosen (it is in the address,
 * `#listen/<workflowId>`, so that a second tab opens the same one), its Webhook nodes' test addresses with the
 * node's hints, and the listen panel. The listens under way when the page opens (another tab's) show at once.
 */
import type { NodeDescription } from 'workflow-webhooks/definitions';
import type { ListenSnapshot, WorkflowDto, WorkflowListing } from '../protocol.js';
import { errorText } from './api.js';
import { copyButton, h, newId } from './dom.js';
import { hintsList, nodeHints } from './hints-view.js';
import { listenPanel, type ListenPanel } from './listen-panel.js';
import type { ListenStore } from './listen-store.js';
import type { ConsoleContext, Section } from './section.js';

function nodeView(node: WorkflowDto['nodes'][number], description: NodeDescription | undefined): HTMLElement {
  const addresses = node.testUrls.length === 0
    ? [h('p', { class: 'issue' }, 'This node has no test address: its parameters do not resolve to one (listening says why).')]
    : node.testUrls.map((address) => h('div', { class: 'address', 'data-address': 'test' },
      h('span', { class: 'address-kind' }, 'Test address'),
      h('span', { class: 'methods' }, ...address.methods.map((method) => h('span', { class: 'method' }, method))),
      h('code', { class: 'url' }, address.url),
      copyButton(() => address.url, `test address of node ${node.name}`)));
  return h('section', { class: 'node', 'aria-label': `Node ${node.name}` },
    h('h4', {}, `Webhook node “${node.name}”`),
    ...addresses,
    hintsList(nodeHints(description?.hints ?? [], 'ndv', false, node.parameters)));
}

export function listenSection({ api, overview }: ConsoleContext, store: ListenStore): Section {
  const title = h('h2', { id: 'listen-title' }, 'Listen for a test event');
  if (!overview.features.listen) {
    return {
      element: h('section', { class: 'section listen', 'aria-labelledby': 'listen-title' }, title,
        h('p', { class: 'note' }, 'The host gave this console no workflows, so it cannot listen for test events. To test workflows from here, pass them as createWebhookConsole({ workflows }).')),
      show: () => undefined,
    };
  }
  const picker = h('select', { id: newId('workflow'), class: 'workflow-picker' });
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const detail = h('div', { class: 'workflow-detail' });
  const element = h('section', { class: 'section listen', 'aria-labelledby': 'listen-title' }, title,
    h('p', { class: 'hint' }, 'Listening makes a workflow’s test addresses take one call, for a while. The call runs the workflow, and what it received and returned shows here, in every tab open on the console.'),
    h('div', { class: 'toolbar' }, h('div', { class: 'cell' }, h('label', { for: picker.id }, 'Workflow'), picker)),
    problem, detail);
  let workflows: WorkflowDto[] | undefined;
  let description: NodeDescription | undefined;
  let loading: Promise<void> | undefined;
  let current: { workflowId: string; panel: ListenPanel } | undefined;
  let wanted: string | undefined;

  const loadListens = async (): Promise<void> => {
    const mark = store.mark();
    const listens = await api.get<ListenSnapshot[]>('listens');
    if (listens.ok) for (const snapshot of listens.data) store.fromAnswer(snapshot, mark);
  };

  const load = async (): Promise<void> => {
    const [listing, node] = await Promise.all([
      api.get<WorkflowListing>('workflows'),
      overview.features.preview ? api.get<NodeDescription>('preview/webhook-node') : Promise.resolve(undefined),
      loadListens(),
    ]);
    if (node?.ok === true) description = node.data;
    if (!listing.ok) {
      problem.hidden = false;
      problem.textContent = `Could not load the workflows: ${errorText(listing.error)}`;
      loading = undefined;
      return;
    }
    workflows = listing.data.workflows;
    picker.replaceChildren(...workflows.map((workflow) => h('option', { value: workflow.workflowId },
      workflow.workflowName === workflow.workflowId ? workflow.workflowName : `${workflow.workflowName} · ${workflow.workflowId}`)));
    if (workflows.length === 0) detail.replaceChildren(h('p', { class: 'empty' }, 'The host gave this console an empty list of workflows.'));
    select(wanted);
  };

  const select = (workflowId: string | undefined): void => {
    if (workflows === undefined) return;
    const workflow = workflows.find((one) => one.workflowId === workflowId) ?? workflows.find((one) => one.workflowId === current?.workflowId) ?? workflows[0];
    if (workflow === undefined) return;
    const hash = `#listen/${encodeURIComponent(workflow.workflowId)}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
    picker.value = workflow.workflowId;
    if (current?.workflowId === workflow.workflowId) return;
    current?.panel.close();
    const panel = listenPanel({ api, workflow, store, description });
    current = { workflowId: workflow.workflowId, panel };
    detail.replaceChildren(
      h('h3', { class: 'workflow-title' }, workflow.workflowName, h('span', { class: 'sub' }, ` ${workflow.workflowId}`)),
      h('p', { class: 'hint' }, workflow.active ? 'Active: its production addresses are served too.' : 'Not active: only its test addresses listen, while you listen.'),
      ...workflow.nodes.map((node) => nodeView(node, description)),
      panel.element);
  };

  picker.addEventListener('change', () => { location.hash = `#listen/${encodeURIComponent(picker.value)}`; });

  return {
    element,
    show(argument) {
      wanted = argument;
      loading ??= load();
      select(argument);
    },
    reconnected: () => { if (workflows !== undefined) void loadListens(); },
  };
}
