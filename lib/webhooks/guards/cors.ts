/**
 * CORS for browser callers (node option `allowedOrigins`: `*` or a comma-separated list, trimmed). Without the
 * option no CORS header is sent. An allowed origin is echoed; a browser call from another origin is refused before
 * the workflow runs, since a browser would hide the answer but the workflow would still run. Every answer of a node
 * with the option carries `Vary: Origin`, refusals and calls without an Origin included, as the answer depends on it.
 */
import { WebhookError } from '../../core/errors.js';
import type { AllowedOrigins } from '../registry/contract.js';

const NONE: Readonly<Record<string, string>> = Object.freeze({});
/** A node with allowedOrigins answers by the caller's Origin: every answer says so, for shared caches. */
const VARY_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ vary: 'Origin' });
/** An OPTIONS answer depends on whether it is a preflight, for which method, and which headers it asks for. */
export const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

/** Headers for an allowed origin; throws CORS_ORIGIN_NOT_ALLOWED for another one. */
export function corsHeaders(allowed: AllowedOrigins | undefined, origin: string | undefined): Readonly<Record<string, string>> {
  if (allowed === undefined) return NONE;
  if (origin === undefined) return VARY_ORIGIN;
  if (allowed !== '*' && !allowed.includes(origin)) {
    throw new WebhookError('CORS_ORIGIN_NOT_ALLOWED', `The origin ${origin} is not allowed to call this webhook.`, {
      hint: 'Add the origin to the node option allowedOrigins.',
      headers: { vary: 'Origin' },
    });
  }
  return { 'access-control-allow-origin': origin, vary: 'Origin' };
}

/** The answer to a preflight for a registered path and method. */
export function preflightHeaders(
  allowed: AllowedOrigins | undefined,
  origin: string,
  methods: readonly string[],
  requestedHeaders: string | undefined,
): Record<string, string> {
  if (allowed === undefined) return { vary: PREFLIGHT_VARY };
  const headers = {
    ...corsHeaders(allowed, origin),
    'access-control-allow-methods': ['OPTIONS', ...methods].join(', '),
    'access-control-max-age': '300',
    vary: PREFLIGHT_VARY,
  };
  if (requestedHeaders !== undefined) return { ...headers, 'access-control-allow-headers': requestedHeaders };
  return headers;
}
