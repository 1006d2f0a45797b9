/**
 * A Fastify 5 contender of the speed table (bench/speed.ts), in its own process; the calls go to
 * `/hooks/webhook/hook`. argv `<family> <kind>`: `fastify-route` (a route with Fastify's own parsers: JSON built in,
 * @fastify/formbody, @fastify/multipart reading the text field and the file's bytes), `fastify-middie` (this
 * middleware through @fastify/middie, mounted at /hooks on the root instance with a preClose hook, as docs/hosts.md
 * shows), or `fastify-plugin` and `fastify-plugin-handler` (prototypes of a plugin form, here only to measure what
 * one would gain over middie: a catch-all route under /hooks that hijacks the reply and hands Node's request and
 * response to the middleware, the request stream untouched by Fastify). Kind `json`, `form` or
 * `multipart`. Reports `{ type: 'ready', port }` over IPC and answers the allocation measure (gc-probe.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import formbody from '@fastify/formbody';
import middie from '@fastify/middie';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddleware } from 'workflow-webhooks';
import { serveGcProbe } from './gc-probe.js';

const [family = 'fastify-route', kind = 'json'] = process.argv.slice(2);
const MOUNT = '/hooks';
const STARTED = { message: 'Workflow was started' };

function route(app: FastifyInstance): void {
  if (kind === 'form') void app.register(formbody);
  if (kind === 'multipart') {
    void app.register(multipart);
    app.post(`${MOUNT}/webhook/:path`, async (request) => {
      // Read as every contender reads an upload: text fields into an object, each file's bytes into one Buffer.
      const fields: Record<string, unknown> = {};
      const files: Record<string, Buffer> = {};
      for await (const part of request.parts()) {
        if (part.type === 'file') files[part.fieldname] = await part.toBuffer();
        else fields[part.fieldname] = part.value;
      }
      if (fields.title === undefined || files.doc === undefined) throw new Error('the upload lost its field or its file');
      return STARTED;
    });
    return;
  }
  app.post(`${MOUNT}/webhook/:path`, async () => STARTED);
}

async function webhooks(): Promise<WebhookMiddleware> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'hook', nodes: [{ name: 'Webhook', parameters: { path: 'hook', httpMethod: 'POST' } }] });
  const output = { items: [{ json: { ok: true } }] };
  return createWebhookMiddleware(registry, () => output);
}

/**
 * The plugin form's hand-off: the reply hijacked (Fastify sends nothing and runs no later hook), Node's request and
 * response given to the middleware as a mount would (`req.url` below the mount, `originalUrl` the whole).
 */
function handOff(middleware: WebhookMiddleware, request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  const req = request.raw as IncomingMessage & { originalUrl?: string };
  req.originalUrl = req.url;
  req.url = (req.url ?? '/').slice(MOUNT.length) || '/';
  middleware(req, reply.raw, (error?: unknown) => {
    // Not one of the middleware's addresses (or errorHandling 'next'): a real plugin would hand it back to Fastify.
    reply.raw.statusCode = error === undefined ? 404 : 500;
    reply.raw.end();
  });
}

/**
 * `fastify-plugin`: a catch-all route under the mount whose own onRequest hook hands off. A reply hijacked before the
 * handler stops the request's lifecycle there: Fastify never reaches its content-type check, parsers, validation or
 * the handler, so the request stream reaches the middleware untouched, whatever its type.
 */
function plugin(app: FastifyInstance, middleware: WebhookMiddleware): void {
  void app.register(async (scope) => {
    scope.all('/*', { onRequest: (request, reply) => handOff(middleware, request, reply) }, () => undefined);
  }, { prefix: MOUNT });
}

/**
 * `fastify-plugin-handler` (run only when named): the hand-off in the route's handler instead, in a scope without
 * body parsers but a catch-all that passes the stream on unread (Fastify's documented way to pipe a request).
 */
function pluginHandler(app: FastifyInstance, middleware: WebhookMiddleware): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.all('/*', (request, reply) => handOff(middleware, request, reply));
  }, { prefix: MOUNT });
}

const app = Fastify();
if (family === 'fastify-route') route(app);
else {
  const middleware = await webhooks();
  if (family === 'fastify-middie') {
    await app.register(middie);
    app.use(MOUNT, middleware);
  } else if (family === 'fastify-plugin') plugin(app, middleware);
  else if (family === 'fastify-plugin-handler') pluginHandler(app, middleware);
  else throw new Error(`fastify-server: unknown family ${family}`);
  const mounted = middleware;
  app.addHook('preClose', async () => { await mounted.close({ timeoutMs: 5000 }); });
}
await app.listen({ port: 0, host: '127.0.0.1' });
serveGcProbe();
process.send?.({ type: 'ready', port: (app.server.address() as AddressInfo).port });
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') void app.close().then(() => process.exit(0));
});
process.on('SIGINT', () => process.exit(0));
process.on('disconnect', () => process.exit(1));
