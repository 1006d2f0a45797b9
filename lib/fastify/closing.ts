/**
 * Calls that arrive while the app closes. Once `app.close()` begins, Fastify answers every new request itself, before
 * any hook of a route runs, with a plain `503 {"error":"Service Unavailable"}` (its option `return503OnClosing`), so
 * the middleware's callers would not get what it promises them: 503 `SHUTTING_DOWN` with `Retry-After`. From the
 * plugin's `preClose` on, the requests for the plugin's addresses are taken off the server before Fastify sees them
 * and handed to the middleware, which is closing and answers them so; every other request reaches Fastify's own
 * listeners as before. Nothing of this runs before the app closes.
 */
import type { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookMiddleware } from '../core/types.js';
import { mountEnd, servedBy } from './hand-off.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Whether `url` is under the prefix: its literal segments equal, a `:param` segment anything but empty. Where the
 * path below the prefix starts, or -1.
 */
function underPrefix(url: string, segments: readonly string[]): number {
  const at = mountEnd(url, segments.length);
  if (at === -1) return -1;
  const given = url.slice(1, at).split('/');
  for (let index = 0; index < segments.length; index += 1) {
    const wanted = segments[index] as string;
    const part = given[index] ?? '';
    if (wanted.startsWith(':') ? part === '' : part !== wanted) return -1;
  }
  return at;
}

/** From now on, the server's requests for the middleware's addresses under `prefix` go to the middleware first. */
export function answerWhileClosing(server: EventEmitter | undefined, middleware: WebhookMiddleware, prefix: string): void {
  if (server === undefined) return;
  const fastifys = server.listeners('request') as RequestListener[];
  if (fastifys.length === 0) return;
  const segments = prefix.split('/').filter((segment) => segment !== '');
  const serves = servedBy(middleware.settings);
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
    const url = req.url ?? '/';
    const at = underPrefix(url, segments);
    if (at === -1 || !serves(url, at)) {
      for (const listener of fastifys) listener.call(server, req, res);
      return;
    }
    if (at > 0) {
      req.originalUrl ??= url;
      req.url = url.slice(at);
    }
    middleware(req, res, () => {
      // The middleware passes on only what it does not serve, which `serves` ruled out: Fastify's answer, then.
      for (const listener of fastifys) listener.call(server, req, res);
    });
  });
}
