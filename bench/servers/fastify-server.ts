/**
 * A Fastify 5 contender of the speed table (bench/speed.ts), in its own process; the calls go to
 * `/hooks/webhook/hook`. argv `<family> <kind>`: `fastify-route` (a route with Fastify's own parsers: JSON built in,
 * @fastify/formbody, @fastify/multipart reading the text field and the file's bytes), `fastify-middie` (this
 * middleware through @fastify/middie, mounted at /hooks on the root instance with a preClose hook, as docs/hosts.md
 * shows), or `fastify-plugin` (this middleware as the plugin of `workflow-webhooks/fastify`, registered with the
 * prefix /hooks, as docs/hosts.md shows first). Kind `json`, `form` or `multipart`. Imports the package by name, so
 * the runner decides whether that is the built package or the sources. Reports `{ type: 'ready', port }` over IPC
 * and answers the allocation measure (gc-probe.ts).
 */
import type { AddressInfo } from 'node:net';
import formbody from '@fastify/formbody';
import middie from '@fastify/middie';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddleware } from 'workflow-webhooks';
import { webhookPlugin } from 'workflow-webhooks/fastify';
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

const app = Fastify();
if (family === 'fastify-route') route(app);
else {
  const middleware = await webhooks();
  if (family === 'fastify-middie') {
    await app.register(middie);
    app.use(MOUNT, middleware);
    app.addHook('preClose', async () => { await middleware.close({ timeoutMs: 5000 }); });
  } else if (family === 'fastify-plugin') {
    // The plugin closes the middleware in its own preClose hook (a 5 s drain under Fastify's default pluginTimeout).
    await app.register(webhookPlugin, { middleware, prefix: MOUNT });
  } else throw new Error(`fastify-server: unknown family ${family}`);
}
await app.listen({ port: 0, host: '127.0.0.1' });
serveGcProbe();
process.send?.({ type: 'ready', port: (app.server.address() as AddressInfo).port });
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') void app.close().then(() => process.exit(0));
});
process.on('SIGINT', () => process.exit(0));
process.on('disconnect', () => process.exit(1));
