/**
 * Turns a workflow into the webhooks it registers, one per (node, method): the Webhook node's defaults and checks,
 * applied once at activation, so that nothing on the request path re-reads raw parameters; and the warnings about
 * what the node holds but nothing reads. Every registry uses it.
 */
import { resolveWorkflowSettings } from './workflow-settings.js';
import { suggestion } from '../../definitions/suggestion.js';
import {
  WEBHOOK_OPTION_NAMES,
  WEBHOOK_PARAMETER_NAMES,
  webhookOptionDefault,
  webhookParameterDefault,
} from '../../definitions/webhook-node-description.js';
import { WebhookConflictError, WebhookError } from '../../core/errors.js';
import { isDynamicPath, normalizeWebhookPath } from './paths.js';
import { compileAllowlist, parseAllowedOrigins, resolveResponseHeaders } from './node-options.js';
import { routeKey } from './route-table.js';
import { refuseStraySchemas, resolveNodeSchemas } from './payload-schemas.js';
import {
  AUTHENTICATIONS,
  HTTP_METHODS,
  RESPONSE_DATA,
  RESPONSE_MODES,
  type Authentication,
  type HttpMethod,
  type ResponseData,
  type ResponseMode,
  type WebhookNode,
  type WebhookKind,
  type WebhookNodeParameters,
  type WorkflowWebhooks,
} from '../../core/types.js';
import type { RegisteredWebhook, ResolvedWebhookParameters, WebhookWarning } from './contract.js';

/** Defaults come from the node's own description, so the editor and the middleware cannot disagree. */
const DEFAULTS = {
  method: webhookParameterDefault('httpMethod', false) as HttpMethod,
  /** Methods a node accepts when `multipleMethods` is on and none are chosen. */
  methods: webhookParameterDefault('httpMethod', true) as HttpMethod[],
  responseMode: webhookParameterDefault('responseMode') as ResponseMode,
  responseData: webhookParameterDefault('responseData') as ResponseData,
  responseCode: webhookParameterDefault('responseCode') as number,
  authentication: webhookParameterDefault('authentication') as Authentication,
  responseBinaryPropertyName: webhookParameterDefault('responseBinaryPropertyName') as string,
  responsePropertyName: webhookOptionDefault('responsePropertyName') as string,
};

function invalid(node: WebhookNode, message: string, hint?: string): WebhookError {
  return new WebhookError('WEBHOOK_INVALID_NODE', `Webhook node "${node.name}": ${message}`, { hint });
}

function oneOf<T extends string>(
  node: WebhookNode,
  name: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(node, `${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}.`);
}

function toMethod(node: WebhookNode, value: unknown): HttpMethod {
  const upper = typeof value === 'string' ? value.trim().toUpperCase() : value;
  return oneOf(node, 'httpMethod', upper, HTTP_METHODS, DEFAULTS.method);
}

/** The node's methods in output order: one by default (GET), GET and POST when multi-method is on. */
export function resolveMethods(node: WebhookNode): HttpMethod[] {
  const { httpMethod, multipleMethods = false } = node.parameters;
  if (typeof multipleMethods !== 'boolean') throw invalid(node, 'multipleMethods must be a boolean.');
  if (!multipleMethods) {
    if (Array.isArray(httpMethod)) {
      throw invalid(node, 'httpMethod lists several methods but multipleMethods is off.',
        'Turn on "Allow Multiple HTTP Methods" or choose one method.');
    }
    return [toMethod(node, httpMethod)];
  }
  if (httpMethod === undefined) return [...DEFAULTS.methods];
  const list = Array.isArray(httpMethod) ? httpMethod : [httpMethod];
  if (list.length === 0) return [...DEFAULTS.methods];
  const methods = list.map((method) => toMethod(node, method));
  const duplicate = methods.find((method, index) => methods.indexOf(method) !== index);
  if (duplicate !== undefined) throw invalid(node, `httpMethod lists ${duplicate} twice.`);
  return methods;
}

function statusCode(node: WebhookNode, name: string, value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599) return value;
  throw invalid(node, `${name} must be an integer from 100 to 599; got ${JSON.stringify(value)}.`);
}

/**
 * The answer's status as each node version stores it: version 1 and 1.1 a top-level `responseCode`; 2 and later
 * `options.responseCode.values`, a listed code or `customCode` with its number. The top-level one wins when both
 * are there.
 */
function resolveResponseCode(node: WebhookNode, topLevel: unknown, option: unknown): number {
  if (topLevel !== undefined) return statusCode(node, 'responseCode', topLevel);
  if (option === undefined) return DEFAULTS.responseCode;
  const values = typeof option === 'object' && option !== null ? (option as { values?: unknown }).values : undefined;
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw invalid(node, 'options.responseCode must be { values: { responseCode } }, as the node stores it.');
  }
  const { responseCode, customCode } = values as { responseCode?: unknown; customCode?: unknown };
  if (responseCode === 'customCode') {
    if (customCode === undefined) throw invalid(node, 'options.responseCode chooses a custom code but gives no customCode.');
    return statusCode(node, 'options.responseCode.values.customCode', customCode);
  }
  if (responseCode === undefined) return DEFAULTS.responseCode;
  return statusCode(node, 'options.responseCode.values.responseCode', responseCode);
}

function optionalString(node: WebhookNode, name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw invalid(node, `options.${name} must be a string.`);
}

function optionalBoolean(node: WebhookNode, name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  throw invalid(node, `options.${name} must be a boolean.`);
}

export function resolveParameters(node: WebhookNode): ResolvedWebhookParameters {
  const parameters: WebhookNodeParameters = node.parameters;
  const options = parameters.options ?? {};
  if (typeof options !== 'object' || Array.isArray(options)) throw invalid(node, 'options must be an object.');
  const authentication = oneOf(node, 'authentication', parameters.authentication, AUTHENTICATIONS, DEFAULTS.authentication);
  const propertyName = optionalString(node, 'responsePropertyName', options.responsePropertyName);
  return {
    methods: resolveMethods(node),
    responseMode: oneOf(node, 'responseMode', parameters.responseMode, RESPONSE_MODES, DEFAULTS.responseMode),
    responseData: oneOf(node, 'responseData', parameters.responseData, RESPONSE_DATA, DEFAULTS.responseData),
    responseCode: resolveResponseCode(node, parameters.responseCode, options.responseCode),
    authentication,
    // An added but empty "Property Name" option means its default, `data`, as in the node's editor.
    responsePropertyName: propertyName === undefined ? undefined : propertyName.trim() || DEFAULTS.responsePropertyName,
    // The known platform keeps it top-level; an options entry is accepted too.
    responseBinaryPropertyName: optionalString(node, 'responseBinaryPropertyName',
      parameters.responseBinaryPropertyName ?? options.responseBinaryPropertyName)?.trim() || DEFAULTS.responseBinaryPropertyName,
    responseContentType: optionalString(node, 'responseContentType', options.responseContentType)?.trim() || undefined,
    rawBody: optionalBoolean(node, 'rawBody', options.rawBody),
    binaryData: optionalBoolean(node, 'binaryData', options.binaryData),
    binaryPropertyName: optionalString(node, 'binaryPropertyName', options.binaryPropertyName)?.trim() || undefined,
    responseHeaders: resolveResponseHeaders(node.name, options.responseHeaders).headers,
    noResponseBody: optionalBoolean(node, 'noResponseBody', options.noResponseBody),
    receivedBody: optionalString(node, 'responseData', options.responseData),
    ipAllowlist: compileAllowlist(node.name, options.ipWhitelist),
    allowedOrigins: parseAllowedOrigins(optionalString(node, 'allowedOrigins', options.allowedOrigins)),
    ignoreBots: optionalBoolean(node, 'ignoreBots', options.ignoreBots),
    options,
  };
}

/**
 * Options read besides the node's Options collection: `responseBinaryPropertyName` is a top-level parameter of the
 * node, but workflows also store it among the options, and it is honoured there; and the options other versions of
 * the node store (`binaryData` of version 1, `responseCode` of version 2 and later).
 */
const OLDER_VERSION_OPTIONS = ['binaryData', 'responseCode'];
const READ_OPTIONS = new Set([...WEBHOOK_OPTION_NAMES, 'responseBinaryPropertyName', ...OLDER_VERSION_OPTIONS]);
const PARAMETERS = new Set(WEBHOOK_PARAMETER_NAMES.filter((name) => name !== 'options'));

function unknownOption(workflowId: string, node: WebhookNode, key: string): WebhookWarning {
  const where = `Workflow "${workflowId}", Webhook node "${node.name}": options.${key}`;
  const parameter = PARAMETERS.has(key) ? key : undefined;
  const guess = parameter === undefined ? suggestion(key, READ_OPTIONS) ?? suggestion(key, PARAMETERS) : undefined;
  const message = parameter !== undefined
    ? `${where} is ignored: ${key} is a parameter of the node, set beside options, not inside them.`
    : guess !== undefined && PARAMETERS.has(guess)
      ? `${where} is not an option of the Webhook node, so it is ignored; did you mean the parameter ${guess} (set beside options, not inside them)?`
      : `${where} is not an option of the Webhook node, so it is ignored; ${guess === undefined
        ? `its options are ${[...READ_OPTIONS].sort().join(', ')}.`
        : `did you mean ${guess}?`}`;
  return { code: 'unknown-option', workflowId, nodeName: node.name, path: `options.${key}`, message };
}

/**
 * What the node's options hold that nothing reads (a typo, or an option of another version of the node), and the
 * response headers left out because the host's security policy owns them.
 */
export function nodeWarnings(workflowId: string, node: WebhookNode): WebhookWarning[] {
  const options = node.parameters.options ?? {};
  const unknown = Object.keys(options).filter((key) => !READ_OPTIONS.has(key)).map((key) => unknownOption(workflowId, node, key));
  const dropped = resolveResponseHeaders(node.name, options.responseHeaders).dropped.map((name): WebhookWarning => ({
    code: 'dropped-header',
    workflowId,
    nodeName: node.name,
    path: 'options.responseHeaders',
    message: `Workflow "${workflowId}", Webhook node "${node.name}": the response header ${name} is left out; it belongs to the `
      + 'host application\'s security policy, which a workflow may not change.',
  }));
  return [...unknown, ...dropped];
}

/** The warnings of the webhooks an activation returned, each once (a node's webhooks share its list). */
export function activationWarnings(webhooks: readonly RegisteredWebhook[]): WebhookWarning[] {
  return [...new Set(webhooks.flatMap((webhook) => webhook.warnings ?? []))];
}

/** The node's registered path: its own path, or its webhookId when empty; dynamic paths get the webhookId first. */
export function resolvePath(node: WebhookNode): string {
  if (typeof node.parameters.path !== 'string') throw invalid(node, 'path must be a string.');
  const path = normalizeWebhookPath(node.parameters.path);
  const webhookId = node.webhookId === undefined ? '' : normalizeWebhookPath(node.webhookId);
  if (path === '') {
    if (webhookId === '') throw invalid(node, 'path is empty and the node has no webhookId.');
    return webhookId;
  }
  if (path.includes('\0')) throw invalid(node, 'path must not contain NUL bytes.');
  return isDynamicPath(path) && webhookId !== '' ? `${webhookId}/${path}` : path;
}

/**
 * All webhooks a workflow registers, one per (node, method); throws WEBHOOK_INVALID_NODE on the first unusable node,
 * and WebhookConflictError when two of its nodes take the same path and method. Options the node does not have are
 * ignored and reported in the webhooks' `warnings` (see `activationWarnings`).
 */
export function resolveWorkflowWebhooks(workflow: WorkflowWebhooks, kind: WebhookKind = 'production'): RegisteredWebhook[] {
  if (typeof workflow !== 'object' || workflow === null) {
    throw new WebhookError('WEBHOOK_INVALID_NODE', 'A workflow must be an object with workflowId and nodes.');
  }
  if (typeof workflow.workflowId !== 'string' || workflow.workflowId === '') {
    throw new WebhookError('WEBHOOK_INVALID_NODE', 'A workflow needs a non-empty string workflowId.');
  }
  if (!Array.isArray(workflow.nodes)) {
    throw new WebhookError('WEBHOOK_INVALID_NODE', `Workflow "${workflow.workflowId}": nodes must be an array.`);
  }
  const settings = resolveWorkflowSettings(workflow);
  refuseStraySchemas(workflow);
  const webhooks: RegisteredWebhook[] = [];
  for (const node of workflow.nodes) {
    if (typeof node?.name !== 'string' || typeof node.parameters !== 'object' || node.parameters === null) {
      throw new WebhookError('WEBHOOK_INVALID_NODE',
        `Workflow "${workflow.workflowId}": every node needs a name and a parameters object.`);
    }
    if (node.disabled === true) continue;
    refuseOtherTypes(workflow.workflowId, node);
    const parameters = resolveParameters(node);
    const path = resolvePath(node);
    const warnings = nodeWarnings(workflow.workflowId, node);
    const schemas = resolveNodeSchemas(workflow, node);
    parameters.methods.forEach((method, outputIndex) => {
      const webhook: RegisteredWebhook = {
        kind,
        credentials: node.credentials,
        workflowId: workflow.workflowId,
        workflowName: workflow.workflowName,
        nodeName: node.name,
        method,
        path,
        isDynamic: isDynamicPath(path),
        outputIndex,
        parameters,
      };
      // Only when there is something to say, so that a webhook without warnings looks as it always did.
      if (warnings.length > 0) webhook.warnings = warnings;
      if (settings !== undefined) webhook.settings = settings;
      if (schemas !== undefined) webhook.schemas = schemas;
      webhooks.push(webhook);
    });
  }
  refuseTwins(webhooks);
  return webhooks;
}

/** Node types whose nodes are Webhook triggers, as the known platform names them. */
export const WEBHOOK_NODE_TYPES: readonly string[] = ['n8n-nodes-base.webhook'];

/** Only a Webhook trigger opens an address: another node that happens to have a `path` parameter never does. */
function refuseOtherTypes(workflowId: string, node: WebhookNode): void {
  if (node.type === undefined || WEBHOOK_NODE_TYPES.includes(node.type)) return;
  throw new WebhookError('WEBHOOK_INVALID_NODE',
    `Workflow "${workflowId}": node "${node.name}" is of type ${JSON.stringify(node.type)}, not a Webhook trigger, so it cannot register a webhook.`, {
      hint: `Pass only Webhook nodes (type ${WEBHOOK_NODE_TYPES.join(' or ')}); fromWorkflowExport(json) picks them out of a whole exported workflow.`,
    });
}

/** Two nodes of one workflow on one address could never both be served: the workflow is refused whole. */
function refuseTwins(webhooks: readonly RegisteredWebhook[]): void {
  const seen = new Map<string, RegisteredWebhook>();
  for (const webhook of webhooks) {
    const key = routeKey(webhook);
    const twin = seen.get(key);
    if (twin !== undefined) {
      throw new WebhookConflictError(twin, 'Two Webhook nodes of this workflow use the same path and method; change one of them.');
    }
    seen.set(key, webhook);
  }
}
