/**
 * One operation of the document: a webhook's (node, method), named from its workflow and node, with the bodies its
 * node accepts, the headers its authentication needs, and its responses.
 */
import type { RegisteredWebhook } from '../registry/contract.js';
import { describeRateLimit, type ResolvedRateLimitPolicy } from '../../core/rate-limits.js';
import { errorStatuses, responsesOf } from './responses.js';
import type { NodeSecurity } from './security.js';
import type { StandardSchema } from '../../core/schemas.js';
import { describeParts, schemaParameters, schemaSentence, type DescribedPart } from './payload-schemas.js';

/** Methods whose calls are described with a body; GET and HEAD bodies are read too, but have no agreed meaning. */
const BODY_METHODS: ReadonlySet<string> = new Set(['DELETE', 'PATCH', 'POST', 'PUT']);

const BINARY = { type: 'string', format: 'binary' } as const;
const TEXT = { type: 'string' } as const;
const FIELD = { anyOf: [TEXT, { type: 'array', items: TEXT }] } as const;

export const hasBody = (webhook: RegisteredWebhook): boolean => BODY_METHODS.has(webhook.method);

/** The workflow as people know it: its name, else its id. */
export const workflowLabel = (webhook: RegisteredWebhook): string => webhook.workflowName ?? webhook.workflowId;

/** Letters and digits of a text, as words (accents dropped, everything else a separator). */
function words(text: string): string[] {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
}

const capital = (word: string): string => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;

/**
 * A valid identifier from workflow, node and method, e.g. `orderIntakeWebhookPost`: the same for the same webhook
 * every time, so generated clients keep their method names. The document makes it unique where two collide.
 */
export function operationIdOf(webhook: RegisteredWebhook): string {
  const workflow = words(workflowLabel(webhook));
  const node = words(webhook.nodeName);
  const [first = 'workflow', ...rest] = workflow;
  const lead = first === first.toUpperCase() ? first.toLowerCase() : `${first.charAt(0).toLowerCase()}${first.slice(1)}`;
  const id = [lead, ...rest.map(capital), ...(node.length === 0 ? ['Webhook'] : node.map(capital)), capital(webhook.method.toLowerCase())].join('');
  return /^[0-9]/.test(id) ? `workflow${id}` : id;
}

function requestBody(webhook: RegisteredWebhook, checked: DescribedPart | undefined): Record<string, unknown> {
  const { binaryData, binaryPropertyName, rawBody } = webhook.parameters;
  if (binaryData) {
    return {
      required: false,
      description: `Any body, of any media type, reaches the workflow whole as the binary property "${binaryPropertyName ?? 'data'}"; `
        + 'the item\'s body stays {} (option binaryData).',
      content: { 'application/octet-stream': { schema: BINARY }, '*/*': { schema: BINARY } },
    };
  }
  const raw = rawBody ? ' The untouched bytes are kept as well, as the binary property "data" (option rawBody).' : '';
  // A described schema is what JSON, form fields and XML must match (form and XML values read as the types it says).
  const schema = checked !== undefined && 'component' in checked ? { $ref: `#/components/schemas/${checked.component}` } : undefined;
  return {
    required: false,
    description: 'Reaches the workflow as the trigger item\'s body: JSON (also text/json and any +json type) as parsed, form fields flat '
      + '(a repeated name as a list), text as a string, XML (also text/xml and any +xml type) as an object. Multipart files, and a body '
      + `of any other media type, arrive as binary properties${binaryPropertyName === undefined ? '' : ` named after "${binaryPropertyName}"`}.${raw}`,
    content: {
      'application/json': { schema: schema ?? {} },
      'application/x-www-form-urlencoded': { schema: schema ?? { type: 'object', additionalProperties: FIELD } },
      'multipart/form-data': { schema: { type: 'object', additionalProperties: { anyOf: [TEXT, BINARY, { type: 'array', items: { anyOf: [TEXT, BINARY] } }] } } },
      'application/xml': { schema: schema ?? TEXT },
      'text/plain': { schema: TEXT },
      'application/octet-stream': { schema: BINARY },
    },
  };
}

/** What the node adds to its calls beyond the address: response mode, guards, methods, parameter names. */
function descriptionOf(webhook: RegisteredWebhook, canonicalNames: readonly string[], limits: readonly ResolvedRateLimitPolicy[] | undefined): string {
  const parameters = webhook.parameters;
  const lines = [`Workflow "${workflowLabel(webhook)}" (${webhook.workflowId}), Webhook node "${webhook.nodeName}".`];
  if (parameters.methods.length > 1) {
    lines.push(`The node takes ${parameters.methods.join(', ')}; ${webhook.method} calls go out on its output ${webhook.outputIndex}.`);
  }
  lines.push({
    onReceived: 'Answered at once; the workflow runs on (response mode onReceived).',
    lastNode: 'Answered when the workflow has finished, from its last node (response mode lastNode).',
    responseNode: 'Answered by the workflow itself, with its Respond to Webhook step (response mode responseNode).',
  }[parameters.responseMode]);
  const own = webhook.path.split('/').filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1));
  if (own.some((name, index) => name !== canonicalNames[index])) {
    lines.push(`The workflow receives the path parameters as ${own.map((name) => `"${name}"`).join(', ')}.`);
  }
  if (parameters.ipAllowlist !== undefined) lines.push('Only callers whose address the node\'s IP allowlist holds are served; others get 403.');
  if (parameters.allowedOrigins !== undefined) {
    lines.push(`Browsers may call it from ${parameters.allowedOrigins === '*' ? 'any origin' : parameters.allowedOrigins.join(', ')}; other origins get 403.`);
  }
  if (parameters.ignoreBots) lines.push('A User-Agent isbot counts as a bot (crawlers, link previewers, HTTP libraries such as curl) gets 403 (option ignoreBots).');
  if (limits !== undefined) {
    lines.push(`Rate limited: ${limits.map((policy) => `${describeRateLimit(policy)} (policy "${policy.name}")`).join('; ')}. A call beyond it gets 429 `
      + 'RATE_LIMITED with Retry-After, RateLimit-Policy and RateLimit, and does not run.');
  }
  lines.push('Query parameters of any name reach the workflow as the item\'s query.');
  return lines.join(' ');
}

export interface OperationContext {
  operationId: string;
  security: NodeSecurity;
  /** The path item's parameter names, in path order: another node of the same address may name them otherwise. */
  canonicalNames: readonly string[];
  timeoutStatus: number;
  /** The rate limits that hold at the address, if any. */
  rateLimit: readonly ResolvedRateLimitPolicy[] | undefined;
  /** The document's `components.schemas`, which the operation's payload schemas are added to. */
  components: Record<string, unknown>;
  /** The middleware's `schemas` validators, for those that can say themselves in JSON Schema. */
  validators: ReadonlyMap<string, StandardSchema> | undefined;
}

export function operationOf(webhook: RegisteredWebhook, context: OperationContext): Record<string, unknown> {
  const { security } = context;
  const body = hasBody(webhook);
  const parts = describeParts(webhook, context.operationId, context.components, context.validators);
  const checks = schemaSentence(parts);
  const operation: Record<string, unknown> = {
    operationId: context.operationId,
    summary: `Workflow "${workflowLabel(webhook)}", node "${webhook.nodeName}"`,
    description: `${descriptionOf(webhook, context.canonicalNames, context.rateLimit)}${checks === undefined ? '' : ` ${checks}`}`,
    tags: [workflowLabel(webhook)],
  };
  const guarded = security.headers.map(({ name, description }) => ({ name, in: 'header', required: true, description, schema: TEXT }));
  const checked = schemaParameters(parts, context.components).filter((parameter) => !guarded.some(({ name }) => name.toLowerCase() === String(parameter.name).toLowerCase()));
  if (guarded.length + checked.length > 0) operation.parameters = [...guarded, ...checked];
  if (body) operation.requestBody = requestBody(webhook, parts.body);
  operation.responses = responsesOf(webhook, errorStatuses(webhook, security, body, context.timeoutStatus, context.rateLimit !== undefined));
  if (security.scheme !== undefined) operation.security = [{ [security.scheme]: [] }];
  operation['x-workflow-id'] = webhook.workflowId;
  operation['x-node-name'] = webhook.nodeName;
  return operation;
}
