/**
 * Response plans: the HTTP answer a call gets, built from the node's response settings and the workflow's output.
 * Pure functions returning a plan; `write-plan.ts` writes them to the socket.
 */
import { create as createDisposition } from 'content-disposition';
import { WebhookError } from '../../core/errors.js';
import type { ExecutionResult } from '../../core/types.js';
import type { ResolvedWebhookParameters } from '../registry/contract.js';

export interface ResponsePlan {
  status: number;
  /** Lower-cased names; a list only for a repeated Set-Cookie. */
  headers: Record<string, string | string[]>;
  /** Bytes or text to send; undefined sends no body. */
  body?: string | Buffer;
  /** A file to stream as the body (binary data kept on disk). */
  file?: string;
  /**
   * The headers as writeHead takes them, Content-Length included, for a plan that many calls share (onReceived)
   * and whose headers need not join a host's (no Vary, CSP or Set-Cookie): made once instead of on every call.
   */
  ready?: Readonly<Record<string, string | string[]>>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

export function jsonResponse(status: number, value: unknown, headers: Record<string, string> = {}): ResponsePlan {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(value) ?? 'null' };
}

/** responseMode `onReceived`: the caller learns at once that the workflow started. */
export function buildReceivedResponse(parameters: ResolvedWebhookParameters): ResponsePlan {
  if (parameters.noResponseBody) return { status: parameters.responseCode, headers: {} };
  if (parameters.receivedBody !== undefined) return valueResponse(parameters, parameters.receivedBody);
  return jsonResponse(parameters.responseCode, { message: 'Workflow was started' });
}

/** Reads `a.b.c` from an item's json, own properties only (never the prototype chain). */
export function readProperty(source: unknown, path: string): unknown {
  let value = source;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A value as a body: strings as text (never as HTML on the host's origin), the rest as JSON. */
function valueResponse(parameters: ResolvedWebhookParameters, value: unknown): ResponsePlan {
  const contentType = parameters.responseContentType;
  if (value === undefined) return { status: parameters.responseCode, headers: {} };
  if (typeof value === 'string') {
    return { status: parameters.responseCode, headers: { 'content-type': contentType ?? TEXT_TYPE }, body: value };
  }
  const plan = jsonResponse(parameters.responseCode, value);
  if (contentType !== undefined) plan.headers['content-type'] = contentType;
  return plan;
}

function firstEntryJson(parameters: ResolvedWebhookParameters, result: ExecutionResult): ResponsePlan {
  const first = result.items[0];
  if (first === undefined) {
    throw new WebhookError('WORKFLOW_NO_ITEM', 'No item to return was found', {
      hint: 'The last node of the workflow returned no items; "First Entry JSON" needs at least one.',
    });
  }
  const property = parameters.responsePropertyName;
  return valueResponse(parameters, property === undefined ? first.json : readProperty(first.json, property));
}

function firstEntryBinary(parameters: ResolvedWebhookParameters, result: ExecutionResult): ResponsePlan {
  const first = result.items[0];
  if (first === undefined) throw new WebhookError('WORKFLOW_NO_ITEM', 'No item was found to return');
  const name = parameters.responseBinaryPropertyName;
  const binary = first.binary?.[name];
  if (binary === undefined || (binary.data === undefined && binary.path === undefined)) {
    throw new WebhookError('WORKFLOW_NO_ITEM', `The binary property '${name}' which should be returned does not exist`);
  }
  const headers: Record<string, string> = { 'content-type': parameters.responseContentType ?? binary.mimeType };
  if (binary.fileName !== undefined) headers['content-disposition'] = contentDisposition(binary.fileName);
  if (binary.data !== undefined) return { status: parameters.responseCode, headers, body: binary.data };
  return { status: parameters.responseCode, headers, file: binary.path as string };
}

/**
 * `inline` with the file name, written by the `content-disposition` package: quoted where it must be, and a name
 * beyond printable ASCII as `filename*=UTF-8''…` beside an ASCII `filename` (each other character as `_`) for
 * clients that cannot read the encoded form.
 */
export function contentDisposition(fileName: string): string {
  return createDisposition(fileName, { type: 'inline', fallback: fileName.replace(/[^\x20-\x7e]/g, '_') });
}

/** responseMode `lastNode`: answer from the last node's items, as its `responseData` says. */
export function buildResultResponse(parameters: ResolvedWebhookParameters, result: ExecutionResult): ResponsePlan {
  switch (parameters.responseData) {
    case 'firstEntryJson':
      return firstEntryJson(parameters, result);
    case 'allEntries':
      return jsonResponse(parameters.responseCode, result.items.map((item) => item.json));
    case 'firstEntryBinary':
      return firstEntryBinary(parameters, result);
    case 'noData':
      return { status: parameters.responseCode, headers: {} };
  }
}
