/**
 * The captured test call as a curl command line that sends it again: the test address with the call's path
 * parameters and query, its method, the headers that describe the body, and the body in the form it came
 * (JSON, form, text, or multipart fields and files). Headers that carry credentials are left as placeholders, and
 * files as the names they arrived with, which the user downloads beside the command.
 */
import qs from 'qs';
import { isSecretHeader } from './redact.js';

/** Headers a client adds itself, or that belong to the connection, not to the call. */
const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'accept-encoding', 'expect', 'te', 'upgrade']);

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function filledPath(template: string, params: Record<string, unknown>): string {
  return template.split('/').map((segment) => {
    if (!segment.startsWith(':')) return segment;
    const value = params[segment.slice(1)];
    return value === undefined ? segment : encodeURIComponent(String(value));
  }).join('/');
}

export interface CapturedCall {
  method: string;
  /** The address template the call matched, with `:param` segments (`webhookUrl` of the trigger item). */
  webhookUrl: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  /** Binary entries of the trigger item: property → file name. */
  files: Record<string, string>;
}

function bodyArguments(call: CapturedCall, mediaType: string): string[] {
  const { body, files } = call;
  const fileNames = Object.entries(files);
  if (mediaType === 'multipart/form-data') {
    const fields = typeof body === 'object' && body !== null ? Object.entries(body as Record<string, unknown>) : [];
    return [
      ...fields.map(([name, value]) => `-F ${quote(`${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)}`),
      ...fileNames.map(([property, fileName]) => `-F ${quote(`${property}=@${fileName}`)}`),
    ];
  }
  if (fileNames.length > 0 && (typeof body !== 'object' || body === null || Object.keys(body).length === 0)) {
    return [`--data-binary ${quote(`@${fileNames[0]?.[1] ?? 'body'}`)}`];
  }
  if (body === undefined || (typeof body === 'object' && body !== null && Object.keys(body).length === 0 && mediaType === '')) return [];
  if (typeof body === 'string') return [`--data-binary ${quote(body)}`];
  if (mediaType === 'application/x-www-form-urlencoded') return [`--data-binary ${quote(qs.stringify(body))}`];
  return [`--data-binary ${quote(JSON.stringify(body))}`];
}

export function curlOf(call: CapturedCall): string {
  const search = qs.stringify(call.query);
  const url = `${filledPath(call.webhookUrl, call.params)}${search === '' ? '' : `?${search}`}`;
  const contentType = typeof call.headers['content-type'] === 'string' ? call.headers['content-type'] : '';
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const parts = [`curl -X ${call.method} ${quote(url)}`];
  for (const [name, value] of Object.entries(call.headers)) {
    const lower = name.toLowerCase();
    if (LEFT_OUT.has(lower) || (lower === 'content-type' && mediaType === 'multipart/form-data')) continue;
    const shown = isSecretHeader(lower) ? `<${lower}>` : Array.isArray(value) ? value.join(', ') : String(value);
    parts.push(`-H ${quote(`${lower}: ${shown}`)}`);
  }
  parts.push(...bodyArguments(call, mediaType));
  return parts.join(' \\\n  ');
}
