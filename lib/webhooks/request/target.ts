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

/** The path after `/<prefix>`, or undefined when the path is elsewhere. */
function afterPrefix(pathname: string, prefix: string): string | undefined {
  const end = prefixEnd(pathname, 0, pathname.length, prefix);
  if (end === -1) return undefined;
  return end === pathname.length ? '' : pathname.slice(end + 1);
}

/**
 * Where `/<prefix>` ends in the path `url` holds from `at` to `end` (before its query): `end` when the path is the
 * prefix itself, the index of the slash after it when the path goes on below it, -1 when the path is elsewhere. The
 * prefix matches in any letter case, as an Express mount does; the rest of the path keeps its case. Reads `url` in
 * place: a host integration that splits URLs itself (the Fastify plugin) asks it without a copy.
 */
export function prefixEnd(url: string, at: number, end: number, prefix: string): number {
  const after = at + 1 + prefix.length;
  if (after > end || url.charCodeAt(at) !== SLASH) return -1;
  if (!url.startsWith(prefix, at + 1) && !sameLetters(url, at + 1, prefix)) return -1;
  if (after === end) return end;
  return url.charCodeAt(after) === SLASH ? after : -1;
}

const SLASH = 47;

/** Whether `text` holds `word` at `at`, ASCII letters in either case (a prefix is ASCII: the option is checked so). */
function sameLetters(text: string, at: number, word: string): boolean {
  for (let i = 0; i < word.length; i += 1) {
    const given = text.charCodeAt(at + i);
    const wanted = word.charCodeAt(i);
    if (given === wanted) continue;
    const folded = wanted | 32;
    if ((given | 32) !== folded || folded < 97 || folded > 122) return false;
  }
  return true;
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
