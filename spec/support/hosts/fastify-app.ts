/**
 * A Fastify 5 application that mounts the webhook middleware through @fastify/middie, as the README's Fastify
 * section says: middie and `app.use(MOUNT, …)` on the root instance, `middleware.close()` in a `preClose` hook. It
 * keeps routes of its own (one inside the mount), hooks that record what Fastify ran, and a logger whose records
 * the specs read.
 */
import type { AddressInfo } from 'node:net';
import middie from '@fastify/middie';
import Fastify, { type FastifyInstance } from 'fastify';
import { WebhookError, type WebhookMiddleware } from '../../../lib/index.js';

type ShutdownResult = Awaited<ReturnType<WebhookMiddleware['close']>>;

export const MOUNT = '/hooks';

export interface FastifyHostOptions {
  closeTimeoutMs?: number;
  /** The hook that calls `middleware.close()`: `preClose` (default) runs before Fastify closes its server. */
  closeHook?: 'preClose' | 'onClose';
  /** `app.setErrorHandler()`: the host's own error format, for a middleware with `errorHandling: 'next'`. */
  errorHandler?: boolean;
  /** Mount inside `app.register(plugin, { prefix })`, with (or without) the plugin's own not-found handler. */
  scoped?: { prefix: string; notFoundHandler: boolean };
}

export interface HookRecord { hook: string; url: string; originalUrl: string; status: number }

export interface FastifyHost {
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every hook run of the host, in order. */
  hooks: HookRecord[];
  /** Fastify's log records (pino JSON), from `info` up. */
  logs: { level: number; msg: string; [field: string]: unknown }[];
  /** What `close()` resolved in the close hook, once the app closed. */
  shutdown: Promise<ShutdownResult>;
  close(): Promise<void>;
}

export async function startFastifyHost(middleware: WebhookMiddleware, options: FastifyHostOptions = {}): Promise<FastifyHost> {
  const logs: FastifyHost['logs'] = [];
  const hooks: HookRecord[] = [];
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { logs.push(JSON.parse(line)); } } } });
  let settled!: (result: ShutdownResult) => void;
  const shutdown = new Promise<ShutdownResult>((resolve) => { settled = resolve; });
  const record = (hook: string) => async (request: { url: string; originalUrl: string }, reply: { statusCode: number }) => {
    hooks.push({ hook, url: request.url, originalUrl: request.originalUrl, status: reply.statusCode });
  };

  // Registered before middie: a host hook that sets a request id on the raw response, and one Fastify header.
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.setHeader('x-request-id', request.id);
    reply.header('x-fastify-header', 'set with reply.header');
  });
  app.get('/api/orders', async () => [{ id: 1 }]);
  app.post(`${MOUNT}/notes`, async (request) => ({ parsedByFastify: request.body }));

  if (options.scoped) {
    const { prefix, notFoundHandler } = options.scoped;
    await app.register(async (scoped) => {
      await scoped.register(middie);
      scoped.use(MOUNT, middleware);
      scoped.get('/status', async () => ({ ok: true }));
      if (notFoundHandler) scoped.setNotFoundHandler((request, reply) => { void reply.code(404).send({ scopedNotFound: request.url }); });
    }, { prefix });
  } else {
    await app.register(middie);
    app.use(MOUNT, middleware);
  }

  app.addHook('onRequest', record('onRequest after middie'));
  app.addHook('onSend', async (request, reply, payload) => { await record('onSend')(request, reply); return payload; });
  app.addHook('onResponse', record('onResponse'));
  app.addHook(options.closeHook ?? 'preClose', async () => { settled(await middleware.close({ timeoutMs: options.closeTimeoutMs ?? 10_000 })); });
  if (options.errorHandler) {
    app.setErrorHandler((error, _request, reply) => {
      if (!(error instanceof WebhookError)) throw error;
      void reply.code(error.status).headers(error.headers).send({ error: { code: error.code, message: error.message } });
    });
  }

  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { app, origin: `http://127.0.0.1:${port}`, hooks, logs, shutdown, close: () => app.close() };
}
