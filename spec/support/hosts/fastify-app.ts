/**
 * A Fastify 5 application that mounts the webhook middleware through @fastify/middie, as the README's Fastify
 * section says: middie and `app.use(MOUNT, …)` on the root instance, `middleware.close()` in a `preClose` hook. It
 * keeps routes of its own (one inside the mount), hooks that record what Fastify ran, and a logger whose records
 * the specs read.
 */
import middie from '@fastify/middie';
import { WebhookError, type WebhookMiddleware } from '../../../lib/index.js';
import { hostApp, type RecordingHost } from './fastify-host-app.js';

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

export interface FastifyHost extends RecordingHost {
  /** What `close()` resolved in the close hook, once the app closed. */
  shutdown: Promise<ShutdownResult>;
}

export async function startFastifyHost(middleware: WebhookMiddleware, options: FastifyHostOptions = {}): Promise<FastifyHost> {
  // Its first onRequest hook is registered before middie.
  const { app, record, listen } = hostApp(MOUNT);
  let settled!: (result: ShutdownResult) => void;
  const shutdown = new Promise<ShutdownResult>((resolve) => { settled = resolve; });

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

  return { ...await listen(), shutdown };
}
