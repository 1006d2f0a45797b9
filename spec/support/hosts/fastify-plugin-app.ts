/**
 * A Fastify 5 application that serves the webhook middleware through `workflow-webhooks/fastify`, as the hosts guide
 * shows: `app.register(webhookPlugin, { middleware, prefix })`. Beside it, routes of its own (one inside the prefix,
 * whose body Fastify parses), host hooks on both sides of the registration that record what Fastify ran, and a logger
 * whose records the specs read.
 */
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { WebhookMiddleware } from '../../../lib/index.js';
import { webhookPlugin, type WebhookPluginOptions } from '../../../lib/fastify/index.js';

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

export interface HookRecord { hook: string; url: string; originalUrl: string; status: number }

export interface PluginHost {
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every hook run of the host, in order. */
  hooks: HookRecord[];
  /** Fastify's log records (pino JSON), from `info` up. */
  logs: { level: number; msg: string; [field: string]: unknown }[];
  close(): Promise<void>;
}

export async function startPluginHost(middleware: WebhookMiddleware, options: PluginHostOptions = {}): Promise<PluginHost> {
  const logs: PluginHost['logs'] = [];
  const hooks: HookRecord[] = [];
  const app = Fastify({ ...options.fastify, logger: { level: 'info', stream: { write: (line: string) => { logs.push(JSON.parse(line)); } } } });
  const record = (hook: string) => async (request: { url: string; originalUrl: string }, reply: { statusCode: number }) => {
    hooks.push({ hook, url: request.url, originalUrl: request.originalUrl, status: reply.statusCode });
  };

  // Added before the plugin: a request id on Node's response, and a header Fastify keeps until it sends.
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.setHeader('x-request-id', request.id);
    reply.header('x-fastify-header', 'set with reply.header');
    await record('onRequest before the plugin')(request, reply);
  });
  app.get('/api/orders', async () => [{ id: 1 }]);
  app.post(`${PREFIX}/notes`, async (request) => ({ parsedByFastify: request.body }));

  const prefix = options.prefix ?? PREFIX;
  const registration = { middleware, prefix, ...options.plugin };
  if (options.within === undefined) await app.register(webhookPlugin, registration);
  else await app.register(async (scope) => { await scope.register(webhookPlugin, registration); }, { prefix: options.within });

  app.addHook('onRequest', record('onRequest after the plugin'));
  app.addHook('preParsing', async (request, reply, payload) => { await record('preParsing')(request, reply); return payload; });
  app.addHook('preHandler', record('preHandler'));
  app.addHook('onSend', async (request, reply, payload) => { await record('onSend')(request, reply); return payload; });
  app.addHook('onResponse', record('onResponse'));

  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { app, origin: `http://127.0.0.1:${port}`, hooks, logs, close: () => app.close() };
}
