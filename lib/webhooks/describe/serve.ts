/**
 * The middleware's route for the document (option `openApi`): GET and HEAD answer it, OPTIONS says what is allowed,
 * any other method is 405. CORS is as open as the webhooks' own and no more: an origin that may call one of the
 * described webhooks from a browser (a node's `allowedOrigins`) may read the document; other origins get no CORS
 * header, so a browser hides it from them. Nothing runs when the document is read, so nothing is refused either.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import vary from 'vary';
import { WebhookError } from '../../core/errors.js';
import type { RegisteredWebhook, WebhookRegistry } from '../registry/contract.js';
import { buildDocument, type DocumentSettings } from './document.js';
import type { ResolvedOpenApiRoute } from './settings.js';

/** The middleware's settings the document follows; the base URL is the request's, unless `publicUrl` fixes it. */
export interface DocumentRouteSettings extends Pick<DocumentSettings, 'productionPrefix' | 'timeoutStatus' | 'credentials' | 'waitingPrefix' | 'rateLimit' | 'validators'> {
  baseUrlOf(req: IncomingMessage): string;
}

export interface DocumentRoute {
  /** Whether the request is for the document's path (below the mount; a trailing slash allowed). */
  owns(req: IncomingMessage): boolean;
  /** Answers it; an error (405, or the registry's) is thrown for the middleware to answer like any other. */
  serve(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

const ALLOW = 'GET, HEAD, OPTIONS';
const OPENAPI_TYPE = 'application/vnd.oai.openapi+json';

function mayRead(webhooks: readonly RegisteredWebhook[], origin: string | undefined): origin is string {
  if (origin === undefined) return false;
  return webhooks.some(({ parameters: { allowedOrigins } }) => allowedOrigins === '*' || (allowedOrigins?.includes(origin) ?? false));
}

/**
 * Whether the path `url` holds from `at` to `end` (before its query) is the document's `path`, with or without a
 * trailing slash. Reads `url` in place, for a host integration that splits URLs itself (the Fastify plugin) too.
 */
export function isDocumentPath(url: string, at: number, end: number, path: string): boolean {
  const length = end - at;
  if (length !== path.length && length !== path.length + 1) return false;
  return url.startsWith(path, at) && (length === path.length || url.charCodeAt(end - 1) === 47);
}

export function documentRoute(registry: WebhookRegistry, route: ResolvedOpenApiRoute, settings: DocumentRouteSettings): DocumentRoute {
  if (typeof registry.list !== 'function') {
    throw new TypeError('workflow-webhooks: option openApi needs a registry with list(), as MemoryWebhookRegistry and RedisWebhookRegistry have.');
  }
  return {
    owns(req) {
      const url = req.url ?? '/';
      const queryAt = url.indexOf('?');
      return isDocumentPath(url, 0, queryAt === -1 ? url.length : queryAt, route.path);
    },

    async serve(req, res) {
      const method = (req.method ?? 'GET').toUpperCase();
      if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
        throw new WebhookError('WEBHOOK_METHOD_NOT_ALLOWED', `The webhooks' OpenAPI document is read with GET or HEAD, not ${method}.`, {
          headers: { allow: ALLOW },
        });
      }
      const webhooks = await registry.list();
      const origin = req.headers.origin;
      vary(res, 'Origin');
      const cors = mayRead(webhooks, origin);
      if (cors) res.setHeader('access-control-allow-origin', origin);
      if (method === 'OPTIONS') {
        if (cors && req.headers['access-control-request-method'] !== undefined) {
          res.setHeader('access-control-allow-methods', 'GET, HEAD');
          res.setHeader('access-control-max-age', '300');
          const requested = req.headers['access-control-request-headers'];
          if (requested !== undefined) res.setHeader('access-control-allow-headers', requested);
        }
        res.writeHead(204, { allow: ALLOW });
        res.end();
        return;
      }
      const document = await buildDocument(webhooks, {
        ...settings, baseUrl: settings.baseUrlOf(req), title: route.title, version: route.version, description: route.description,
      });
      const body = Buffer.from(JSON.stringify(document));
      // OpenAPI's own media type to a client that asks for it; plain JSON, which every tool reads, to everyone else.
      vary(res, 'Accept');
      const type = (req.headers.accept ?? '').toLowerCase().includes(OPENAPI_TYPE) ? OPENAPI_TYPE : 'application/json';
      res.writeHead(200, {
        'content-type': `${type}; charset=utf-8`,
        'content-length': body.length,
        // Workflows come and go: a cache must ask again every time.
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      res.end(method === 'HEAD' ? undefined : body);
    },
  };
}
