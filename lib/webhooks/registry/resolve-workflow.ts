/**
 * Turns a workflow into the webhooks it registers, one per (node, method): the Webhook node's defaults and checks,
 * applied once at activation, so that nothing on the request path re-reads raw parameters; and the warnings about
 * what the node holds but nothing reads. Every registry uses it.
 */
import { suggestion } from '../../definitions/suggestion.js';
import {
  WEBHOOK_OPTION_NAMES,
  WEBHOOK_PARAMETER_NAMES,
  webhookOptionDefault,
  webhookParameterDefault,
} from '../../definitions/webhook-node-description.js';
import { WebhookConflictError, WebhookError } from '../errors.js';
import { isDynamicPath, normalizeWebhookPath } from './paths.js';
import { compileAllowlist, parseAllowedOrigins, resolveResponseHeaders } from './node-options.js';
import { routeKey } from './route-table.js';
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
} from '../types.js';
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

function resolveResponseCode(node: WebhookNode, value: unknown): number {
  if (value === undefined) return DEFAULTS.responseCode;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599) return value;
  throw invalid(node, `responseCode must be an integer from 100 to 599; got ${JSON.stringify(value)}.`);
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
    responseCode: resolveResponseCode(node, parameters.responseCode),
    authentication,
    // An added but empty "Property Name" option means its default, `data`, as in the node's editor.
    responsePropertyName: propertyName === undefined ? undefined : propertyName.trim() || DEFAULTS.responsePropertyName,
    // The known platform keeps it top-level; an options entry is accepted too.
    responseBinaryPropertyName: optionalString(node, 'responseBinaryPropertyName',
      parameters.responseBinaryPropertyName ?? options.responseBinaryPropertyName)?.trim() || DEFAULTS.responseBinaryPropertyName,
    responseContentType: optionalString(node, 'responseContentType', options.responseContentType)?.trim() || undefined,
    rawBody: optionalBoolean(node, 'rawBody', options.rawBody),
    binaryPropertyName: optionalString(node, 'binaryPropertyName', options.binaryPropertyName)?.trim() || undefined,
    responseHeaders: resolveResponseHeaders(node.name, options.responseHeaders),
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
 * node, but workflows also store it among the options, and it is honoured there.
 */
const READ_OPTIONS = new Set([...WEBHOOK_OPTION_NAMES, 'responseBinaryPropertyName']);
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

/** What the node's options hold that nothing reads (a typo, or an option of another version of the node). */
export function nodeWarnings(workflowId: string, node: WebhookNode): WebhookWarning[] {
  const options = node.parameters.options ?? {};
  return Object.keys(options).filter((key) => !READ_OPTIONS.has(key)).map((key) => unknownOption(workflowId, node, key));
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
  const webhooks: RegisteredWebhook[] = [];
  for (const node of workflow.nodes) {
    if (typeof node?.name !== 'string' || typeof node.parameters !== 'object' || node.parameters === null) {
      throw new WebhookError('WEBHOOK_INVALID_NODE',
        `Workflow "${workflow.workflowId}": every node needs a name and a parameters object.`);
    }
    if (node.disabled === true) continue;
    const parameters = resolveParameters(node);
    const path = resolvePath(node);
    const warnings = nodeWarnings(workflow.workflowId, node);
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
      webhooks.push(webhook);
    });
  }
  refuseTwins(webhooks);
  return webhooks;
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
