/**
 * The node option `responseHeaders`, checked once at activation: names must be tokens, values must not carry CR/LF
 * (no header injection), and headers that belong to the connection or to the host's security policy are refused
 * with a clear message instead of being dropped silently.
 */
import { WebhookError } from '../errors.js';

const TOKEN = /^[!#$%&'*+.^\w`|~-]+$/;
const SAFE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Hop-by-hop headers (RFC 9110 §7.6.1) and framing: the server owns them. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection',
  'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length']);
/** Security policy of the host's origin: a workflow must not weaken it. */
const HOST_POLICY = new Set(['content-security-policy', 'strict-transport-security', 'clear-site-data', 'set-cookie']);

type HeaderEntries = { entries?: { name?: unknown; value?: unknown }[] } | Record<string, unknown>;

function pairsOf(value: HeaderEntries): [unknown, unknown][] {
  // The known platform stores { entries: [{ name, value }] }; a plain { name: value } object is accepted too.
  if (Array.isArray((value as { entries?: unknown }).entries)) {
    return ((value as { entries: { name?: unknown; value?: unknown }[] }).entries).map((entry) => [entry?.name, entry?.value]);
  }
  return Object.entries(value);
}

/** Lower-cased, checked response headers; throws WEBHOOK_INVALID_NODE naming the first bad one. */
export function resolveResponseHeaders(nodeName: string, value: unknown): Record<string, string> {
  if (value === undefined) return {};
  const invalid = (message: string): WebhookError =>
    new WebhookError('WEBHOOK_INVALID_NODE', `Webhook node "${nodeName}": options.responseHeaders ${message}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('must be { entries: [{ name, value }] }.');
  const headers: Record<string, string> = {};
  for (const [rawName, rawValue] of pairsOf(value as HeaderEntries)) {
    if (typeof rawName !== 'string' || !TOKEN.test(rawName.trim())) throw invalid(`has an invalid header name ${JSON.stringify(rawName)}.`);
    const name = rawName.trim().toLowerCase();
    const headerValue = typeof rawValue === 'number' ? String(rawValue) : rawValue;
    if (typeof headerValue !== 'string' || !SAFE_VALUE.test(headerValue)) {
      throw invalid(`has an invalid value for "${name}" (line breaks and control characters are not allowed).`);
    }
    if (HOP_BY_HOP.has(name)) throw invalid(`may not set "${name}": the server manages it.`);
    if (HOST_POLICY.has(name)) throw invalid(`may not set "${name}": it belongs to the host application's security policy.`);
    headers[name] = headerValue;
  }
  return headers;
}
