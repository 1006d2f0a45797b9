/**
 * The responses of an operation: the successful answer its response settings give (the same rules the response
 * stage follows), and the error answers a call to it can get, each a `{ code, message, hint? }` whose codes are read
 * from the error catalogue when the document is built.
 */
import { STATUS_CODES } from 'node:http';
import { ERROR_CODES, type WebhookErrorCode } from '../../core/errors.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import type { NodeSecurity } from './security.js';

export type ResponseObject = Record<string, unknown>;

/** Codes no call of a production address is answered with: they refuse an activation, or concern test addresses. */
const NOT_FOR_CALLS: ReadonlySet<WebhookErrorCode> = new Set<WebhookErrorCode>(['WEBHOOK_CONFLICT', 'WEBHOOK_INVALID_NODE', 'WEBHOOK_TEST_NOT_LISTENING']);

const ERROR_SCHEMA = '#/components/schemas/WebhookError';
const BINARY = { type: 'string', format: 'binary' } as const;

/** The error answer's body: `code` lists every code of the catalogue, so a client can branch on any of them. */
export function errorSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Stable: a code never changes meaning.' },
      message: { type: 'string', description: 'What went wrong, for a person.' },
      hint: { type: 'string', description: 'What to do about it, when there is something to say.' },
      errors: {
        type: 'array',
        maxItems: 20,
        description: 'PAYLOAD_INVALID: where the call did not match its schema and what was expected there (never the value sent).',
        items: {
          type: 'object',
          required: ['path', 'message'],
          properties: {
            path: { type: 'string', description: 'A JSON pointer into the call: /body/…, /query/…, /headers/….' },
            message: { type: 'string', description: 'What was expected there.' },
          },
        },
      },
    },
  };
}

/** Headers an error answer of that status carries. */
const ERROR_HEADERS: Record<number, Record<string, unknown>> = {
  401: { 'WWW-Authenticate': { description: 'The challenge: Basic, Bearer, or the signature scheme\'s.', schema: { type: 'string' } } },
  405: { Allow: { description: 'The methods the address does accept.', schema: { type: 'string' } } },
  429: {
    'Retry-After': { description: 'Whole seconds to wait before calling again.', schema: { type: 'string' } },
    'RateLimit-Policy': { description: 'RATE_LIMITED: the address\'s rate limits (draft-ietf-httpapi-ratelimit-headers), e.g. "ip-60s";q=10;w=60.', schema: { type: 'string' } },
    RateLimit: { description: 'RATE_LIMITED: what is left of each limit, e.g. "ip-60s";r=0;t=42.', schema: { type: 'string' } },
  },
  503: { 'Retry-After': { description: 'Seconds to wait before calling again, when the server is shutting down.', schema: { type: 'string' } } },
};

/** Component key of the error answer of a status. */
export const errorKey = (status: number): string => `Error${status}`;

/**
 * One component per status a call can be refused with, naming the codes behind it. The deadline's code answers with
 * the host's `timeoutStatus` (524 unless it chose another).
 */
export function errorComponents(timeoutStatus: number): Record<string, ResponseObject> {
  const byStatus = new Map<number, string[]>();
  for (const [code, catalogued] of Object.entries(ERROR_CODES) as [WebhookErrorCode, number][]) {
    // Resume addresses' own answers are described with their path; a run's waiting errors never reach a caller as such;
    // the console's are its page's, and history's its API's (finding and replaying kept calls), never a webhook call's.
    if (NOT_FOR_CALLS.has(code) || code.startsWith('WAIT_') || code === 'TOO_MANY_WAITING' || code.startsWith('CONSOLE_') || code.startsWith('HISTORY_')) continue;
    const status = code === 'WORKFLOW_TIMEOUT' ? timeoutStatus : catalogued;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const components: Record<string, ResponseObject> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const reason = STATUS_CODES[status] ?? (status === 524 ? 'A timeout occurred' : 'Error');
    components[errorKey(status)] = {
      description: `${reason}: ${codes.join(', ')}.`,
      ...(ERROR_HEADERS[status] === undefined ? {} : { headers: ERROR_HEADERS[status] }),
      content: { 'application/json': { schema: { $ref: ERROR_SCHEMA } } },
    };
  }
  return components;
}

/** The statuses a call of this operation can be refused with (each has a component). */
export function errorStatuses(webhook: RegisteredWebhook, security: NodeSecurity, hasBody: boolean, timeoutStatus: number, limited = false): number[] {
  const parameters = webhook.parameters;
  // Any call: a bad path or request, not found once deactivated, a method taken away, URL and header limits, failures.
  const statuses = new Set([400, 404, 405, 408, 414, 431, 500, 503]);
  if (hasBody) for (const status of [413, 415]) statuses.add(status);
  if (parameters.authentication !== 'none' || parameters.ipAllowlist !== undefined || parameters.ignoreBots || parameters.allowedOrigins !== undefined) {
    statuses.add(403);
  }
  if (security.challenges) statuses.add(401);
  if (security.replays) statuses.add(409);
  if (parameters.responseMode !== 'onReceived') statuses.add(timeoutStatus);
  if (limited) statuses.add(429);
  if (webhook.schemas !== undefined) statuses.add(422);
  return [...statuses].sort((a, b) => a - b);
}

/** A status that never carries a body (RFC 9110): 1xx, 204, 304. */
const bodiless = (status: number): boolean => status < 200 || status === 204 || status === 304;

/** A media type without its parameters, as a content key: `text/html; charset=utf-8` → `text/html`. */
const mediaTypeOf = (contentType: string): string => (contentType.split(';')[0] as string).trim().toLowerCase();

function headersOf(webhook: RegisteredWebhook, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const headers: Record<string, unknown> = { ...extra };
  for (const [name, value] of Object.entries(webhook.parameters.responseHeaders)) {
    // A response's Content-Type is its content key, never a header entry.
    if (name === 'content-type') continue;
    headers[name] = { description: 'Set by the node\'s Response Headers option.', schema: { type: 'string', examples: [Array.isArray(value) ? value[0] : value] } };
  }
  return headers;
}

const isJson = (mediaType: string): boolean => mediaType === 'application/json' || mediaType.endsWith('+json');

/** A fixed text sent as JSON is, to a client, the value it parses to. */
function jsonConst(text: string): Record<string, unknown> {
  try {
    return { const: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}

/** The answer `onReceived` gives at once. */
function received(webhook: RegisteredWebhook): ResponseObject {
  const { noResponseBody, receivedBody, responseContentType } = webhook.parameters;
  if (noResponseBody) return { description: 'The workflow started; the answer has no body (option noResponseBody).' };
  if (receivedBody !== undefined) {
    const type = mediaTypeOf(responseContentType ?? 'text/plain');
    return {
      description: 'The workflow started; the answer is the node\'s fixed text (option responseData).',
      content: { [type]: { schema: isJson(type) ? jsonConst(receivedBody) : { type: 'string', const: receivedBody } } },
    };
  }
  return {
    description: 'The workflow started and runs on.',
    content: {
      'application/json': {
        schema: { type: 'object', required: ['message'], properties: { message: { type: 'string', const: 'Workflow was started' } } },
      },
    },
  };
}

/** The answer `lastNode` gives once the workflow finished, by its `responseData`. */
function lastNode(webhook: RegisteredWebhook): ResponseObject {
  const { responseData, responsePropertyName, responseContentType, responseBinaryPropertyName } = webhook.parameters;
  const custom = responseContentType === undefined ? undefined : mediaTypeOf(responseContentType);
  switch (responseData) {
    case 'noData':
      return { description: 'The workflow finished; the answer has no body (response data: no data).' };
    case 'allEntries':
      return {
        description: 'The workflow finished: the JSON of every item its last node returned.',
        content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } } },
      };
    case 'firstEntryBinary':
      return {
        description: `The workflow finished: the binary property "${responseBinaryPropertyName}" of the first item its last node returned.`,
        headers: headersOf(webhook, { 'Content-Disposition': { description: 'inline, with the file name when the binary has one.', schema: { type: 'string' } } }),
        content: { [custom ?? '*/*']: { schema: BINARY } },
      };
    case 'firstEntryJson':
      if (responsePropertyName !== undefined) {
        return {
          description: `The workflow finished: the property "${responsePropertyName}" of the first item's JSON, as text when it is a string, `
            + 'else as JSON; an empty body when the item has no such property.',
          content: custom === undefined
            ? { 'text/plain': { schema: { type: 'string' } }, 'application/json': { schema: {} } }
            : { [custom]: { schema: {} } },
        };
      }
      return {
        description: 'The workflow finished: the JSON of the first item its last node returned.',
        content: { [custom ?? 'application/json']: { schema: { type: 'object' } } },
      };
  }
}

/** The successful answers of the operation, keyed by status (`default` for responseNode, whose workflow chooses it). */
export function successResponses(webhook: RegisteredWebhook): Record<string, ResponseObject> {
  const { responseMode, responseCode } = webhook.parameters;
  if (responseMode === 'responseNode') {
    const description = 'What the workflow answers with its Respond to Webhook step: any status (200 unless it says), headers and body; '
      + 'text as text/plain, bytes as application/octet-stream, other values as JSON, unless it sets a Content-Type.';
    return { default: webhook.method === 'HEAD' ? { description } : { description, content: { '*/*': { schema: {} } } } };
  }
  const answer = responseMode === 'onReceived' ? received(webhook) : lastNode(webhook);
  const headers = answer.headers ?? headersOf(webhook);
  const { content, ...rest } = answer;
  const withHeaders = Object.keys(headers as object).length === 0 ? rest : { ...rest, headers };
  // HEAD and bodiless statuses send the headers of the answer only.
  if (webhook.method === 'HEAD' || bodiless(responseCode) || content === undefined) return { [responseCode]: withHeaders };
  return { [responseCode]: { ...withHeaders, content } };
}

/** Success first; an error status the node also uses for success keeps the node's answer, and says so. */
export function responsesOf(webhook: RegisteredWebhook, errors: number[]): Record<string, ResponseObject> {
  const responses = successResponses(webhook);
  for (const status of errors) {
    const key = String(status);
    const own = responses[key];
    if (own === undefined) responses[key] = { $ref: `#/components/responses/${errorKey(status)}` };
    else own.description = `${String(own.description)} The same status also answers errors as { code, message, hint? }.`;
  }
  return responses;
}
