/**
 * One call's way from a Fastify route to the middleware: the URL split at the plugin's prefix as an Express mount
 * splits it, a last check that the middleware serves the path, the headers earlier hooks set carried onto Node's
 * response, the reply hijacked before Fastify reads a byte of the body, and Node's request and response handed over.
 */
import type { IncomingMessage } from 'node:http';
import { toWebhookError } from '../core/errors.js';
import { errorFields } from '../core/logger.js';
import type { WebhookMiddleware } from '../core/types.js';
import { isDocumentPath } from '../webhooks/describe/serve.js';
import { prefixEnd } from '../webhooks/request/target.js';
import { sendError } from '../webhooks/response/error-answer.js';
import type { FastifyOnRequestLike, FastifyReplyLike } from './host.js';

type MountedRequest = IncomingMessage & { originalUrl?: string };

/**
 * Where the path below the mount starts in `url`: at the slash after the prefix's `segments` segments (0 at the
 * root); -1 when the path has fewer. The prefix may hold parameters (`/tenants/:tenant`), so segments are counted, not
 * compared.
 */
export function mountEnd(url: string, segments: number): number {
  let at = 0;
  for (let segment = 0; segment < segments; segment += 1) {
    at = url.indexOf('/', at + 1);
    if (at === -1) return -1;
  }
  const queryAt = url.indexOf('?');
  return queryAt !== -1 && queryAt < at ? -1 : at;
}

/**
 * Whether the middleware answers the path of `url` below the mount, which starts at `at`: one of its prefixes, by
 * the rule of its request target, or its OpenAPI document's path. Read in place: nothing is allocated per call.
 */
export function servedBy(settings: WebhookMiddleware['settings']): (url: string, at: number) => boolean {
  const prefixes = [settings.productionPrefix, settings.testPrefix, settings.waitingPrefix];
  const document = settings.openApiPath;
  return (url, at) => {
    const queryAt = url.indexOf('?', at);
    const end = queryAt === -1 ? url.length : queryAt;
    for (let i = 0; i < prefixes.length; i += 1) if (prefixEnd(url, at, end, prefixes[i] as string) !== -1) return true;
    return document !== undefined && isDocumentPath(url, at, end, document);
  };
}

/**
 * Fastify keeps headers set with `reply.header()` until it sends; a hijacked reply never sends, so they go onto Node's
 * response, where the middleware keeps what the host set (Fastify's value wins a name set both ways, as on its sends).
 */
function carryHeaders(reply: FastifyReplyLike): void {
  const headers = reply.getHeaders();
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
}

/** The onRequest hook of the plugin's routes, for a prefix of `segments` path segments. */
export function handOff(middleware: WebhookMiddleware, segments: number): FastifyOnRequestLike {
  const serves = servedBy(middleware.settings);
  const { logger } = middleware.settings;
  return (request, reply) => {
    const req = request.raw as MountedRequest;
    const url = req.url ?? '/';
    const cut = mountEnd(url, segments);
    // The router can match a path the middleware does not serve (duplicate slashes ignored, say): it goes to the
    // app's not-found handler as if no route had matched, its body unread.
    if (cut === -1 || !serves(url, cut)) {
      reply.callNotFound();
      return;
    }
    if (cut > 0) {
      req.originalUrl ??= url;
      req.url = url.slice(cut);
    }
    carryHeaders(reply);
    reply.hijack();
    const res = reply.raw;
    middleware(req, res, (error?: unknown) => {
      // Only a middleware wrapped by the host passes a call on here: Fastify can no longer answer a hijacked reply.
      const failure = toWebhookError(error ?? new Error('The webhook middleware passed on a call the Fastify plugin had handed to it.'));
      logger.error({ err: errorFields(error ?? failure), path: url.split('?')[0] },
        `workflow-webhooks/fastify: a call the plugin hijacked was passed on, which only a middleware wrapped by the host does; it was answered ${failure.status}`);
      sendError(res, () => undefined, failure, 'respond');
    });
  };
}
