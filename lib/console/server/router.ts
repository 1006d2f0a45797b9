/**
 * The console's router, on Node's own request and response API so that it mounts in Express 4 and 5, Connect and
 * Nest alike. Each request is authorized first, whatever its path; then matched by path and method (405 with
 * `Allow` for a known path asked otherwise); every POST must pass the CSRF check; and any failure becomes an
 * answer in one place (answer.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { match, type MatchFunction } from 'path-to-regexp';
import { WebhookError } from '../../core/errors.js';
import { requestMountPath } from '../../webhooks/request/target.js';
import type { ResolvedConsoleOptions } from '../options.js';
import { authorizeRequest, checkCsrf } from './access.js';
import { notFound, sendConsoleError } from './answer.js';

export interface RouteRequest {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Where the host mounted the console ('' at the root). */
  mountPath: string;
}

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  handle(request: RouteRequest): Promise<void> | void;
}

interface CompiledRoute extends Route {
  matches: MatchFunction<Record<string, string>>;
}

export type ConsoleHandler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

function splitUrl(req: IncomingMessage): { pathname: string; query: URLSearchParams } {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  return { pathname: pathname === '' ? '/' : pathname, query: new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1)) };
}

export function consoleRouter(routes: readonly Route[], options: ResolvedConsoleOptions): ConsoleHandler {
  const compiled: CompiledRoute[] = routes.map((route) => ({ ...route, matches: match<Record<string, string>>(route.path, { decode: decodeURIComponent }) }));

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!await authorizeRequest(req, res, options)) return;
    const { pathname, query } = splitUrl(req);
    const method = req.method === 'HEAD' ? 'GET' : req.method ?? 'GET';
    let found: { route: CompiledRoute; params: Record<string, string> } | undefined;
    const allowed = new Set<string>();
    for (const route of compiled) {
      let matched: ReturnType<CompiledRoute['matches']>;
      try {
        matched = route.matches(pathname);
      } catch {
        throw notFound('This address of the console is not valid (its path cannot be decoded).');
      }
      if (matched === false) continue;
      allowed.add(route.method);
      if (route.method === method && found === undefined) found = { route, params: matched.params };
    }
    if (found === undefined) {
      if (allowed.size === 0) throw notFound(`The console has no page or API at ${pathname}.`);
      const allow = [...allowed, ...(allowed.has('GET') ? ['HEAD'] : [])].join(', ');
      throw new WebhookError('CONSOLE_METHOD_NOT_ALLOWED', `${pathname} takes ${allow} only.`, { headers: { allow } });
    }
    if (found.route.method === 'POST') checkCsrf(req, options.csrfSecret);
    await found.route.handle({ req, res, params: found.params, query, mountPath: requestMountPath(req) });
  }

  return (req, res) => {
    serve(req, res).catch((error: unknown) => {
      sendConsoleError(res, error, options.logger, `${req.method ?? 'GET'} ${splitUrl(req).pathname}`);
    });
  };
}
