/**
 * The Webhook node's options that are compiled once at activation, so the request path only applies them:
 * `ipWhitelist`, `allowedOrigins` and `responseHeaders`. A bad entry refuses the activation with a message naming
 * it, instead of being skipped silently at request time; what is only out of place is left out and reported.
 */
import proxyaddr from 'proxy-addr';
import { WebhookError } from '../../core/errors.js';
import type { AllowedOrigins, IpAllowlist } from './contract.js';

/**
 * `ipWhitelist` ("IP(s) Allowlist"): addresses and CIDR ranges, IPv4 and IPv6, separated by commas (white space and
 * empty entries ignored, so a trailing comma is harmless). proxy-addr also matches IPv4-mapped IPv6 addresses
 * (`::ffff:10.0.0.1`) against IPv4 rules.
 */
export function compileAllowlist(nodeName: string, value: unknown): IpAllowlist | undefined {
  if (value === undefined || value === '' || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new WebhookError('WEBHOOK_INVALID_NODE', `Webhook node "${nodeName}": options.ipWhitelist must be a comma-separated string.`);
  }
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return undefined;
  for (const entry of entries) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new WebhookError('WEBHOOK_INVALID_NODE', `Webhook node "${nodeName}": options.ipWhitelist has "${entry}", which is not an IP address or CIDR range.`, {
        hint: 'Use addresses such as 203.0.113.7 or 2001:db8::1, and ranges such as 10.0.0.0/8 or 2001:db8::/32.',
      });
    }
  }
  const trusted = proxyaddr.compile(entries);
  return (address) => trusted(address, 0);
}

/** `allowedOrigins`: `*` or a comma-separated list of origins (trailing slashes dropped); blank means no CORS. */
export function parseAllowedOrigins(value: unknown): AllowedOrigins | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const entries = value.split(',').map((entry) => entry.trim().replace(/\/+$/, '')).filter((entry) => entry !== '');
  return entries.includes('*') ? '*' : entries;
}

/*
 * `responseHeaders`: names must be tokens, values must not carry CR/LF (no header injection). Headers of the
 * connection refuse the activation (the server must own them); headers of the host's security policy are left out
 * and reported, so a workflow built elsewhere still activates. `Set-Cookie` may repeat, each entry a cookie.
 */

const TOKEN = /^[!#$%&'*+.^\w`|~-]+$/;
const SAFE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** An HTTP header name (an RFC 9110 token): every check of a header name in the library is this one. */
export function isHeaderName(value: unknown): value is string {
  return typeof value === 'string' && TOKEN.test(value);
}

/** A header value that cannot split the header (no CR, LF or other control characters). */
export function isHeaderValue(value: unknown): value is string {
  return typeof value === 'string' && SAFE_VALUE.test(value);
}
/** Hop-by-hop headers (RFC 9110 §7.6.1) and framing: the server owns them. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection',
  'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length']);
/** Security policy of the host's origin: a workflow must not weaken it, so the node's entry is dropped. */
export const HOST_POLICY_HEADERS: ReadonlySet<string> = new Set(['content-security-policy', 'strict-transport-security', 'clear-site-data']);

/** Checked response headers: one value per name, a list for a repeated Set-Cookie. */
export type ResponseHeaders = Record<string, string | string[]>;

type HeaderEntries = { entries?: { name?: unknown; value?: unknown }[] } | Record<string, unknown>;

function pairsOf(value: HeaderEntries): [unknown, unknown][] {
  // The known platform stores { entries: [{ name, value }] }; a plain { name: value } object is accepted too.
  if (Array.isArray((value as { entries?: unknown }).entries)) {
    return ((value as { entries: { name?: unknown; value?: unknown }[] }).entries).map((entry) => [entry?.name, entry?.value]);
  }
  return Object.entries(value);
}

export interface ResolvedResponseHeaders {
  headers: ResponseHeaders;
  /** Names of the host's security policy the node tried to set, left out. */
  dropped: string[];
}

/** Lower-cased, checked response headers; throws WEBHOOK_INVALID_NODE naming the first bad one. */
export function resolveResponseHeaders(nodeName: string, value: unknown): ResolvedResponseHeaders {
  if (value === undefined) return { headers: {}, dropped: [] };
  const invalid = (message: string): WebhookError =>
    new WebhookError('WEBHOOK_INVALID_NODE', `Webhook node "${nodeName}": options.responseHeaders ${message}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('must be { entries: [{ name, value }] }.');
  const headers: ResponseHeaders = {};
  const dropped: string[] = [];
  for (const [rawName, rawValue] of pairsOf(value as HeaderEntries)) {
    if (typeof rawName !== 'string' || !isHeaderName(rawName.trim())) throw invalid(`has an invalid header name ${JSON.stringify(rawName)}.`);
    const name = rawName.trim().toLowerCase();
    const headerValue = typeof rawValue === 'number' ? String(rawValue) : rawValue;
    if (!isHeaderValue(headerValue)) {
      throw invalid(`has an invalid value for "${name}" (line breaks and control characters are not allowed).`);
    }
    if (HOP_BY_HOP.has(name)) throw invalid(`may not set "${name}": the server manages it.`);
    if (HOST_POLICY_HEADERS.has(name)) {
      if (!dropped.includes(name)) dropped.push(name);
      continue;
    }
    const earlier = headers[name];
    headers[name] = name === 'set-cookie' && earlier !== undefined ? [...[earlier].flat(), headerValue] : headerValue;
  }
  return { headers, dropped };
}
