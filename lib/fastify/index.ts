/**
 * `workflow-webhooks/fastify`: the webhook middleware as a Fastify 5 plugin, without @fastify/middie. Its routes take
 * the middleware's addresses under the plugin's prefix and hand each call to the middleware before Fastify reads the
 * body; every other path stays Fastify's. Fastify is an optional peer: nothing of it is imported, here or elsewhere.
 *
 * @example
 * const webhooks = createWebhookMiddleware(registry, executor);
 * await app.register(webhookPlugin, { middleware: webhooks, prefix: '/api/automation' });
 *
 * @module workflow-webhooks/fastify
 */
export { webhookPlugin } from './plugin.js';
export type {
  FastifyInstanceLike,
  FastifyOnRequestLike,
  FastifyReplyLike,
  FastifyRequestLike,
  WebhookPlugin,
  WebhookPluginOptions,
} from './host.js';
