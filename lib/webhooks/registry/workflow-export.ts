/**
 * Reads a workflow as the known platform exports it (its editor's Download, its CLI's export, its API) into the
 * Webhook triggers to activate: only nodes of a Webhook type, disabled ones left out, parameters as the node's
 * version stores them; and its Wait nodes that resume on a webhook call, as wait options (`waits`). Expressions cannot run here: a fixed one (`=orders`) is read as its text, and one that
 * computes (`={{ … }}`) refuses the import, naming the parameter.
 */
import { WebhookError } from '../../core/errors.js';
import type { WebhookNode, WebhookNodeParameters, WorkflowWebhooks } from '../../core/types.js';
import { WEBHOOK_NODE_TYPES } from './resolve-workflow.js';
import { WAIT_NODE_TYPE, waitOptionsOf } from './wait-export.js';

/** One node of an exported workflow; other fields (position, id, notes) are allowed and ignored. */
export interface ExportedNode {
  name: string;
  type: string;
  typeVersion?: number;
  webhookId?: string;
  disabled?: boolean;
  parameters?: Record<string, unknown>;
  credentials?: unknown;
  [field: string]: unknown;
}

/** A workflow as the platform exports it: `id`, `name`, `nodes`, `connections`, and more that is ignored. */
export interface WorkflowExport {
  id?: string | number;
  name?: string;
  nodes: ExportedNode[];
  [field: string]: unknown;
}

export interface WorkflowExportOptions {
  /** The id to activate the workflow under; default the export's own `id`. Needed when the export has none. */
  workflowId?: string;
}

function refused(message: string, hint?: string): WebhookError {
  return new WebhookError('WEBHOOK_INVALID_NODE', message, { hint });
}

function parse(json: WorkflowExport | string): unknown {
  if (typeof json !== 'string') return json;
  try {
    return JSON.parse(json) as unknown;
  } catch (error) {
    throw new WebhookError('WEBHOOK_INVALID_NODE', 'The workflow export is not valid JSON.', { cause: error });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A parameter value with the platform's expression marker read: `=text` is the fixed text `text`; an expression
 * with `{{ }}` would need the platform's evaluator and the run's data, which a trigger's address cannot wait for.
 */
function literal(value: unknown, where: string): unknown {
  if (typeof value === 'string') {
    if (!value.startsWith('=')) return value;
    if (value.includes('{{')) {
      throw refused(`${where} is an expression (${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}); webhook parameters must be fixed values.`,
        'Replace the expression with the value it gives, in the platform or in the export.');
    }
    return value.slice(1);
  }
  if (Array.isArray(value)) return value.map((entry, index) => literal(entry, `${where}[${index}]`));
  if (isObject(value)) {
    const copy: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      Object.defineProperty(copy, key, { value: literal(entry, `${where}.${key}`), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }
  return value;
}

function toWebhookNode(workflowId: string, node: ExportedNode): WebhookNode {
  const parameters = literal(node.parameters ?? {}, `Workflow "${workflowId}", node "${node.name}": parameter`);
  if (!isObject(parameters)) throw refused(`Workflow "${workflowId}", node "${node.name}": parameters must be an object.`);
  // The platform leaves out parameters at their defaults; an empty path means "use the webhookId", as it does.
  const webhookNode: WebhookNode = {
    name: node.name,
    type: node.type,
    parameters: { ...parameters, path: parameters.path ?? '' } as WebhookNodeParameters,
  };
  if (node.typeVersion !== undefined) webhookNode.typeVersion = node.typeVersion;
  if (node.webhookId !== undefined) webhookNode.webhookId = node.webhookId;
  if (node.credentials !== undefined) webhookNode.credentials = node.credentials;
  return webhookNode;
}

/**
 * The Webhook triggers of an exported workflow, ready for `registry.activate()`. Accepts the export as an object
 * or as its JSON text; nodes of other types and disabled nodes are left out. Throws WEBHOOK_INVALID_NODE when the
 * export is not one workflow, has no id (and none is given), or a Webhook node's parameter is a computed expression.
 *
 * @example
 * await registry.activate(fromWorkflowExport(await readFile('My workflow.json', 'utf8')));
 */
export function fromWorkflowExport(json: WorkflowExport | string, options: WorkflowExportOptions = {}): WorkflowWebhooks {
  const workflow = parse(json);
  if (Array.isArray(workflow)) {
    throw refused('The export holds several workflows; import each one: exports.map((workflow) => fromWorkflowExport(workflow)).');
  }
  if (!isObject(workflow) || !Array.isArray(workflow.nodes)) {
    throw refused('A workflow export is an object with a nodes array, as the platform writes it.');
  }
  const id = options.workflowId ?? (workflow.id === undefined || workflow.id === null ? undefined : String(workflow.id));
  if (id === undefined || id === '') {
    throw refused('The workflow export has no id.', 'Pass one: fromWorkflowExport(json, { workflowId: "orders" }).');
  }
  const nodes = (workflow.nodes as unknown[]).filter((node): node is ExportedNode =>
    isObject(node) && typeof node.type === 'string' && WEBHOOK_NODE_TYPES.includes(node.type) && node.disabled !== true);
  for (const node of nodes) {
    if (typeof node.name !== 'string') throw refused(`Workflow "${id}": a Webhook node has no name.`);
  }
  const result: WorkflowWebhooks = { workflowId: id, nodes: nodes.map((node) => toWebhookNode(id, node)) };
  if (typeof workflow.name === 'string') result.workflowName = workflow.name;
  const waits = waitNodes(id, workflow.nodes as unknown[]);
  if (waits !== undefined) result.waits = waits;
  return result;
}

/** The Wait nodes that resume on a webhook call, by name: the options to wait with. */
function waitNodes(workflowId: string, nodes: unknown[]): WorkflowWebhooks['waits'] {
  const waits: NonNullable<WorkflowWebhooks['waits']> = {};
  for (const node of nodes) {
    if (!isObject(node) || node.type !== WAIT_NODE_TYPE || node.disabled === true || typeof node.name !== 'string') continue;
    const parameters = literal(node.parameters ?? {}, `Workflow "${workflowId}", node "${node.name}": parameter`);
    const wait = isObject(parameters) ? waitOptionsOf(workflowId, node.name, parameters, node.credentials) : undefined;
    if (wait !== undefined) waits[node.name] = wait;
  }
  return Object.keys(waits).length === 0 ? undefined : waits;
}
