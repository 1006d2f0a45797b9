/**
 * The request target: decide whether a request is addressed to a webhook prefix at all, and split its URL once.
 * Requests outside the prefixes are none of our business and fall through to the host's next handler.
 */
import type { IncomingMessage } from 'node:http';
import type { WebhookKind } from '../../core/types.js';

export interface RequestTarget {
  /** Production, test, or a run's resume address (waiting). */
  kind: WebhookKind | 'waiting';
  /** Path after the prefix, still percent-encoded, without the leading slash. */
  rawPath: string;
  /** Query string without `?` ('' when none). */
  search: string;
  /** Where the middleware is mounted in the host ('' at the root), for building the public address. */
  mountPath: string;
}

export interface Prefixes {
  production: string;
  test: string;
  waiting: string;
}

/** Returns the webhook target of a request, or undefined when its path is outside every webhook prefix. */
export function readRequestTarget(req: IncomingMessage, prefixes: Prefixes): RequestTarget | undefined {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  let kind: RequestTarget['kind'] = 'production';
  let rawPath = afterPrefix(pathname, prefixes.production);
  if (rawPath === undefined) {
    kind = 'test';
    rawPath = afterPrefix(pathname, prefixes.test);
  }
  if (rawPath === undefined) {
    kind = 'waiting';
    rawPath = afterPrefix(pathname, prefixes.waiting);
  }
  if (rawPath === undefined) return undefined;
  return {
    kind,
    rawPath,
    search: queryAt === -1 ? '' : url.slice(queryAt + 1),
    mountPath: mountPathOf(req, pathname),
  };
}

/**
 * The path after `/<prefix>`, or undefined when the path is elsewhere. The prefix matches in any letter case, as an
 * Express mount does; the rest of the path keeps its case.
 */
function afterPrefix(pathname: string, prefix: string): string | undefined {
  if (pathname.charCodeAt(0) !== 47) return undefined;
  const end = prefix.length + 1;
  if (!pathname.startsWith(prefix, 1)) {
    // Cheap refusal first: most requests a host serves do not even start with the prefix's letter.
    if (pathname.length < end || (pathname.charCodeAt(1) | 32) !== (prefix.charCodeAt(0) | 32)) return undefined;
    if (pathname.slice(1, end).toLowerCase() !== prefix.toLowerCase()) return undefined;
  }
  if (pathname.length === end) return '';
  return pathname.charCodeAt(end) === 47 ? pathname.slice(end + 1) : undefined;
}

/** Where the middleware is mounted in the host ('' at the root), for a request outside the webhook prefixes too. */
export function requestMountPath(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  return mountPathOf(req, queryAt === -1 ? url : url.slice(0, queryAt));
}

/**
 * Express and Connect strip the mount path from `req.url` and keep the full one in `req.originalUrl`. A request for
 * the mount path itself (`/admin/webhooks`, no trailing slash) arrives as `/`: its whole path is the mount.
 */
function mountPathOf(req: IncomingMessage, pathname: string): string {
  const original = (req as IncomingMessage & { originalUrl?: string }).originalUrl;
  if (original === undefined || original === req.url) return '';
  const queryAt = original.indexOf('?');
  const originalPath = queryAt === -1 ? original : original.slice(0, queryAt);
  if (originalPath.endsWith(pathname)) return originalPath.slice(0, originalPath.length - pathname.length);
  return pathname === '/' ? originalPath : '';
}
