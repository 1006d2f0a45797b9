/**
 * Who may use the console, and which of their requests may change anything. Every request passes the host's
 * `authorize` first. Every POST must then come from the console's own page: same site by the browser's word
 * (Sec-Fetch-Site, Origin), and carrying the CSRF token the page got from the overview. The token is an HMAC of a
 * random cookie only the browser holds (HttpOnly, SameSite=Strict), so another site can neither read nor forge it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TLSSocket } from 'node:tls';
import { parseCookie, stringifySetCookie } from 'cookie';
import { WebhookError } from '../../core/errors.js';
import type { ResolvedConsoleOptions } from '../options.js';

const COOKIE = 'wwc_csrf';
export const CSRF_HEADER = 'x-console-csrf';

/** Resolves when the request may go on; false when the host's hook answered it itself. Throws the refusal otherwise. */
export async function authorizeRequest(req: IncomingMessage, res: ServerResponse, options: ResolvedConsoleOptions): Promise<boolean> {
  if (options.authorize === undefined) return true;
  const verdict = await options.authorize(req, res);
  if (verdict === true) return true;
  if (res.headersSent || res.writableEnded) return false;
  // The refusals' messages name nothing: whoever is refused learns no more than its code (docs/console.md, Secure by default).
  if (verdict === 401) {
    throw new WebhookError('CONSOLE_UNAUTHORIZED', 'Authentication required.', {
      ...(options.challenge === undefined ? {} : { headers: { 'www-authenticate': options.challenge } }),
    });
  }
  throw new WebhookError('CONSOLE_FORBIDDEN', 'Access denied.');
}

function tokenOf(secret: Buffer, nonce: string): string {
  return createHmac('sha256', secret).update(nonce).digest('base64url');
}

function cookieNonce(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  const nonce = parseCookie(header)[COOKIE];
  return nonce !== undefined && /^[\w-]{43}$/.test(nonce) ? nonce : undefined;
}

/**
 * The CSRF token for this browser: from its cookie, or a new cookie set here (beside the host's cookies, never in
 * their place), scoped to the console's mount path.
 */
export function issueCsrfToken(req: IncomingMessage, res: ServerResponse, secret: Buffer, mountPath: string): string {
  let nonce = cookieNonce(req);
  if (nonce === undefined) {
    nonce = randomBytes(32).toString('base64url');
    const cookie = stringifySetCookie({
      name: COOKIE, value: nonce, path: `${mountPath}/`, httpOnly: true, sameSite: 'strict', secure: req.socket instanceof TLSSocket,
    });
    const earlier = res.getHeader('set-cookie');
    res.setHeader('set-cookie', [...(earlier === undefined ? [] : [earlier].flat().map(String)), cookie]);
  }
  return tokenOf(secret, nonce);
}

function refused(message: string): WebhookError {
  return new WebhookError('CONSOLE_CSRF_INVALID', message, {
    hint: 'Changes can only be made from the console page itself; reload it and try again.',
  });
}

function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** Throws CONSOLE_CSRF_INVALID unless the POST comes from the console's page in this browser. */
export function checkCsrf(req: IncomingMessage, secret: Buffer): void {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw refused('A change to the console must come from its own page, not from another site.');
  if (!sameOrigin(req)) throw refused('A change to the console must come from its own page, not from another origin.');
  const nonce = cookieNonce(req);
  const given = req.headers[CSRF_HEADER];
  if (nonce === undefined || typeof given !== 'string') throw refused(`This request carries no CSRF token (the ${CSRF_HEADER} header and the console's cookie).`);
  const expected = Buffer.from(tokenOf(secret, nonce));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw refused('The CSRF token is not valid for this browser.');
}
