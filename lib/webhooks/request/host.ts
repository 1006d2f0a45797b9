/**
 * The address a caller used, for the run's `webhookUrl`: `publicUrl` when the host set one, else the request's
 * origin. A Host header is whatever the caller wrote (`Host: evil.example` gives an attacker's link to a workflow
 * that mails its address onward), so with `allowedHosts` a call to any other name is refused 421 HOST_NOT_ALLOWED,
 * and with none of publicUrl, proxyHops and allowedHosts the logger is told once, at the first call addressed to a
 * name other than this machine's own.
 */
import type { IncomingMessage } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import type { WebhookLogger } from '../../core/logger.js';

/** How the middleware learns the address callers use; resolved once, at the factory. */
export interface HostPolicy {
  publicUrl: string | undefined;
  proxyHops: number;
  /** Lower-cased names (`api.example.com`, `api.example.com:8443`, `*.example.com`); undefined: any. */
  allowedHosts: readonly string[] | undefined;
  logger: WebhookLogger;
}

/** The entry a header list holds for the outermost of `hops` trusted proxies (each proxy appends its own). */
function forwarded(value: string | string[] | undefined, hops: number): string | undefined {
  const list = (Array.isArray(value) ? value.join(',') : value)?.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (list === undefined || list.length === 0) return undefined;
  return list[Math.max(0, list.length - hops)];
}

const HOST = /^[\w.-]+(:\d{1,5})?$|^\[[\da-f:.]+\](:\d{1,5})?$/i;

/**
 * Scheme and host the caller addressed. Behind `proxyHops` trusted proxies, their X-Forwarded-Proto and
 * X-Forwarded-Host say what the caller used; without trusted proxies those headers are anybody's and are ignored.
 * A malformed host never reaches workflow data (it reads as `localhost`).
 */
function addressed(req: IncomingMessage, proxyHops: number): { proto: string; host: string } {
  const encrypted = (req.socket as { encrypted?: boolean } | null)?.encrypted === true;
  let proto = encrypted ? 'https' : 'http';
  let host = req.headers.host;
  if (proxyHops > 0) {
    const forwardedProto = forwarded(req.headers['x-forwarded-proto'], proxyHops)?.toLowerCase();
    if (forwardedProto === 'http' || forwardedProto === 'https') proto = forwardedProto;
    host = forwarded(req.headers['x-forwarded-host'], proxyHops) ?? host;
  }
  return { proto, host: host !== undefined && HOST.test(host) ? host : 'localhost' };
}

/** `api.example.com:8443` → `api.example.com`; `[::1]:80` → `[::1]`. */
function nameOf(host: string): string {
  return host.replace(/:\d+$/, '');
}

/** Matches a listed name: exact (with its port if it names one, any port if not), or `*.example.com` for subdomains. */
export function hostAllowed(addressedHost: string, allowed: readonly string[]): boolean {
  const host = addressedHost.toLowerCase();
  const name = nameOf(host);
  return allowed.some((entry) => {
    if (entry.startsWith('*.')) return name.endsWith(entry.slice(1)) && name.length > entry.length - 1;
    return entry === host || entry === name;
  });
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

function hostNotAllowed(host: string): WebhookError {
  return new WebhookError('HOST_NOT_ALLOWED', `This server does not answer webhook calls addressed to ${host}.`, {
    hint: 'Call the address the webhook was given; the server lists the names it answers to in its allowedHosts option.',
  });
}

/**
 * The base URL of a call's addresses (origin + mount path), made once per middleware: refuses a host outside
 * `allowedHosts`, and warns once when the Host header is trusted as it came.
 */
export function baseUrlResolver(policy: HostPolicy): (req: IncomingMessage, mountPath: string) => string {
  const { publicUrl, proxyHops, allowedHosts, logger } = policy;
  let warned = publicUrl !== undefined || proxyHops > 0 || allowedHosts !== undefined;
  // The last answer without trusted proxies, which depends on nothing but these three: calls to one server mostly
  // come addressed alike, and then cost a comparison instead of a parse, a check and a new string.
  let lastHost: string | undefined;
  let lastMount: string | undefined;
  let lastEncrypted = false;
  let lastBase = '';
  return (req, mountPath) => {
    if (publicUrl !== undefined && allowedHosts === undefined) return publicUrl;
    const encrypted = (req.socket as { encrypted?: boolean } | null)?.encrypted === true;
    if (proxyHops === 0 && req.headers.host === lastHost && lastHost !== undefined && mountPath === lastMount && encrypted === lastEncrypted) return lastBase;
    const { proto, host } = addressed(req, proxyHops);
    if (allowedHosts !== undefined && !hostAllowed(host, allowedHosts)) throw hostNotAllowed(host);
    if (!warned && !LOOPBACK.test(nameOf(host))) {
      warned = true;
      logger.warn({ host },
        `webhookUrl is built from the Host header of each call, which any caller can set (this call was addressed to ${host}). ` +
        'Set the middleware option publicUrl to the address callers use, or allowedHosts to the names this server answers to.');
    }
    const base = publicUrl ?? `${proto}://${host}${mountPath}`;
    if (proxyHops === 0) {
      lastHost = req.headers.host;
      lastMount = mountPath;
      lastEncrypted = encrypted;
      lastBase = base;
    }
    return base;
  };
}
