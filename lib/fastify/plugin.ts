/**
 * The plugin's registration: its options checked once, a route under the plugin's prefix for each address family the
 * middleware serves (Fastify's router leaves every other path to the app), and the middleware's close() in
 * Fastify's `preClose`, from which on its addresses are answered by the closing middleware, not by Fastify.
 */
import type { EventEmitter } from 'node:events';
import { describeValue } from '../core/option-checks.js';
import type { WebhookMiddleware, WebhookMiddlewareSettings } from '../core/types.js';
import { answerWhileClosing } from './closing.js';
import { handOff } from './hand-off.js';
import type { FastifyInstanceLike, FastifyReplyLike, FastifyRequestLike, WebhookPlugin, WebhookPluginOptions } from './host.js';

/** The middleware's own default drain. */
const DRAIN_MS = 10_000;
/** What close() may take past its drain (stopping runs, answering 503, removing temp files), kept free below pluginTimeout. */
const CLOSE_MARGIN_MS = 5_000;
/** Fastify's default pluginTimeout. */
const FASTIFY_PLUGIN_TIMEOUT_MS = 10_000;

function invalid(name: string, expected: string, value: unknown): never {
  throw new TypeError(`workflow-webhooks/fastify: option ${name} must be ${expected}; got ${describeValue(value)}.`);
}

function middlewareOf(value: unknown): WebhookMiddleware {
  const settings = (value as Partial<WebhookMiddleware> | undefined)?.settings;
  if (typeof value !== 'function' || typeof settings?.productionPrefix !== 'string' || typeof (value as WebhookMiddleware).close !== 'function') {
    invalid('middleware', 'what createWebhookMiddleware() returns', value);
  }
  if (settings.errorHandling === 'next') {
    throw new TypeError('workflow-webhooks/fastify: the middleware was created with errorHandling \'next\', which hands its errors to '
      + 'the host\'s error handler; the plugin hijacks Fastify\'s reply before the body is read, so Fastify\'s error handler can no '
      + 'longer answer. Create the middleware with errorHandling \'respond\' (the default, JSON errors with a code), or mount it '
      + 'with @fastify/middie (app.use(prefix, middleware)), where setErrorHandler() answers its errors.');
  }
  return value as WebhookMiddleware;
}

/**
 * The drain close() gets: Fastify fails app.close() when a `preClose` hook outlasts `pluginTimeout` (0: no limit),
 * so the default stays `CLOSE_MARGIN_MS` below it, and a longer one is refused now rather than at shutdown.
 */
function closeTimeoutOf(value: unknown, pluginTimeout: number): number {
  const fits = pluginTimeout === 0 ? Infinity : pluginTimeout - CLOSE_MARGIN_MS;
  if (value === undefined) return Math.max(0, Math.min(DRAIN_MS, fits));
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) invalid('closeTimeoutMs', 'a whole number of ms, 0 or more', value);
  if (value > fits) {
    throw new TypeError(`workflow-webhooks/fastify: option closeTimeoutMs (${value} ms) does not fit the app's pluginTimeout `
      + `(${pluginTimeout} ms), Fastify's limit for each preClose hook, past which app.close() fails: create the app with `
      + `pluginTimeout of at least ${value + CLOSE_MARGIN_MS} (0 for none), or lower closeTimeoutMs.`);
  }
  return value;
}

/**
 * The routes, below the plugin's prefix, of everything the middleware serves: each prefix itself and all below it,
 * and the OpenAPI document (with a trailing slash too, unless the router already ignores one).
 */
export function routesOf(settings: WebhookMiddlewareSettings, trailingSlashIgnored: boolean): string[] {
  const paths = [settings.productionPrefix, settings.testPrefix, settings.waitingPrefix].flatMap((prefix) => [`/${prefix}`, `/${prefix}/*`]);
  const document = settings.openApiPath;
  if (document !== undefined) paths.push(...(trailingSlashIgnored ? [document] : [document, `${document}/`]));
  return paths;
}

/** Never reached: the routes' onRequest hook answers or hands on every request, and never lets Fastify go on. */
function notFound(_request: FastifyRequestLike, reply: FastifyReplyLike): void {
  reply.callNotFound();
}

async function register(instance: FastifyInstanceLike, options: WebhookPluginOptions): Promise<void> {
  if (typeof options !== 'object' || options === null) invalid('options', 'an object with the middleware', options);
  const middleware = middlewareOf(options.middleware);
  const config = instance.initialConfig;
  const timeoutMs = closeTimeoutOf(options.closeTimeoutMs, config.pluginTimeout ?? FASTIFY_PLUGIN_TIMEOUT_MS);
  const segments = instance.prefix.split('/').filter((segment) => segment !== '').length;
  const onRequest = handOff(middleware, segments);
  const trailingSlashIgnored = config.routerOptions?.ignoreTrailingSlash === true || config.ignoreTrailingSlash === true;
  for (const path of routesOf(middleware.settings, trailingSlashIgnored)) instance.all(path, { onRequest }, notFound);
  instance.addHook('preClose', async () => {
    // Fastify answers every new request with its own plain 503 from now on: the plugin's addresses get the middleware's.
    answerWhileClosing((instance as { server?: EventEmitter }).server, middleware, instance.prefix);
    await middleware.close({ timeoutMs });
  });
}

/**
 * The webhook middleware as a Fastify 5 plugin: `app.register(webhookPlugin, { middleware, prefix: '/hooks' })`
 * serves `/hooks/webhook/<path>` and every other address of the middleware. Its calls reach the middleware with
 * Fastify's reply hijacked before the body is read (no content-type check, parser or body limit of Fastify's runs);
 * every other path, under the prefix too, stays Fastify's. `middleware.close()` runs in `preClose`.
 */
export const webhookPlugin: WebhookPlugin = Object.assign(register, {
  [Symbol.for('fastify.display-name')]: 'workflow-webhooks',
  [Symbol.for('plugin-meta')]: { name: 'workflow-webhooks', fastify: '>=5.0.0' },
});
