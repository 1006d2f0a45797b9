/**
 * A Fastify 5 application that serves the webhook middleware through `workflow-webhooks/fastify`, as the hosts guide
 * shows: `app.register(webhookPlugin, { middleware, prefix })`. Beside it, routes of its own (one inside the prefix,
 * whose body Fastify parses), host hooks on both sides of the registration that record what Fastify ran, and a logger
 * whose records the specs read.
 */
import type { FastifyServerOptions } from 'fastify';
import type { WebhookMiddleware } from '../../../lib/index.js';
import { webhookPlugin, type WebhookPluginOptions } from '../../../lib/fastify/index.js';
import { hostApp, type RecordingHost } from './fastify-host-app.js';

export const PREFIX = '/hooks';

export interface PluginHostOptions {
  /** Fastify's own options (pluginTimeout, routerOptions…); the logger is the host's. */
  fastify?: Omit<FastifyServerOptions, 'logger'>;
  /** Where the plugin is registered: `prefix` (default /hooks), inside a plugin with its own prefix when `within` is set. */
  prefix?: string;
  within?: string;
  /** The plugin's other options (closeTimeoutMs). */
  plugin?: Omit<WebhookPluginOptions, 'middleware' | 'prefix'>;
}

/** The running app. */
export type PluginHost = RecordingHost;

export async function startPluginHost(middleware: WebhookMiddleware, options: PluginHostOptions = {}): Promise<PluginHost> {
  // Its first onRequest hook is added before the plugin.
  const { app, record, listen } = hostApp(PREFIX, options.fastify, 'onRequest before the plugin');

  const prefix = options.prefix ?? PREFIX;
  const registration = { middleware, prefix, ...options.plugin };
  if (options.within === undefined) await app.register(webhookPlugin, registration);
  else await app.register(async (scope) => { await scope.register(webhookPlugin, registration); }, { prefix: options.within });

  app.addHook('onRequest', record('onRequest after the plugin'));
  app.addHook('preParsing', async (request, reply, payload) => { await record('preParsing')(request, reply); return payload; });
  app.addHook('preHandler', record('preHandler'));
  app.addHook('onSend', async (request, reply, payload) => { await record('onSend')(request, reply); return payload; });
  app.addHook('onResponse', record('onResponse'));

  return listen();
}
