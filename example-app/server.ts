/**
 * Starts the example backend: `npm start` (PORT defaults to 3000). With REDIS_URL set it becomes one instance of
 * several sharing a RedisWebhookRegistry (prefix REDIS_PREFIX, default `orders-api:`): INSTANCE names it in the
 * `x-instance` header, ACTIVATE=0 leaves activating to another instance. example-app/cluster.ts starts three.
 */
import type { WebhookRegistry } from 'workflow-webhooks';
import type { CallLog } from 'workflow-webhooks/console';
import { createOrdersApp } from './app.js';

const redisUrl = process.env.REDIS_URL;
const instance = process.env.INSTANCE;
const port = Number(process.env.PORT ?? 3000);

/** The shared registry, connected and loaded, and how to release it. Imported only when asked for. */
async function openRedisRegistry(url: string): Promise<{ registry: WebhookRegistry; callLog: CallLog; close: () => Promise<void> }> {
  const { createClient } = await import('redis');
  const { RedisCallLog, RedisWebhookRegistry } = await import('workflow-webhooks/redis');
  const client = createClient({ url });
  // node-redis emits every failed reconnect; the registry reports what matters (it went away, it came back).
  client.on('error', () => undefined);
  try {
    // node-redis retries a first connect forever; an instance that cannot reach Redis should say so and stop.
    await Promise.race([client.connect(), new Promise((_resolve, reject) => {
      setTimeout(() => reject(new Error('no answer within 5 s')), 5000).unref();
    })]);
    const prefix = process.env.REDIS_PREFIX ?? 'orders-api:';
    const registry = new RedisWebhookRegistry({ client, prefix });
    await registry.ready();
    // Every instance's calls in one list, so the console of any instance shows them all.
    const callLog = new RedisCallLog({ client, keyPrefix: prefix });
    return { registry, callLog, close: async () => { await callLog.close(); await registry.close(); client.destroy(); } };
  } catch (error) {
    client.destroy();
    throw error;
  }
}

let shared: Awaited<ReturnType<typeof openRedisRegistry>> | undefined;
try {
  shared = redisUrl === undefined ? undefined : await openRedisRegistry(redisUrl);
} catch (error) {
  process.stderr.write(`Could not open the webhook registry in Redis at ${String(redisUrl)}: ${(error as Error).message}\n`);
  process.exit(1);
}
const app = await createOrdersApp({
  ...(shared === undefined ? {} : { registry: shared.registry, console: { callLog: shared.callLog } }),
  ...(instance === undefined ? {} : { instance }),
  activate: process.env.ACTIVATE !== '0',
});

// Express 5 calls this back on a listen error too; the 'error' handler below answers that.
const server = app.listen(port, '127.0.0.1', (error) => {
  if (error !== undefined) return;
  if (shared !== undefined) {
    process.stdout.write(`Instance ${instance ?? '(unnamed)'} of the orders API on http://127.0.0.1:${port}, webhooks in Redis\n`);
    return;
  }
  const base = `http://127.0.0.1:${port}/api/automation/webhook`;
  process.stdout.write([
    `Orders API with workflow webhooks on http://127.0.0.1:${port}`,
    '',
    `Webhook console (addresses, Listen for test event, recent calls, preview): http://127.0.0.1:${port}/admin/webhooks/`,
    '',
    'Try:',
    `  curl '${base}/hello?name=Ada'`,
    `  curl -X POST ${base}/orders -H 'content-type: application/json' -d '{"item":"Tea"}'`,
    `  curl http://127.0.0.1:${port}/api/orders`,
    `  curl ${base}/orders/2`,
    `  curl -X PUT ${base}/orders/2 -H 'content-type: application/json' -d '{"status":"packed"}'`,
    `  curl -i -X DELETE ${base}/orders/2     # 405, Allow: GET, PUT`,
    `  curl -i ${base}/nothing                # 404 with a hint`,
    `  curl http://127.0.0.1:${port}/api/automation/openapi.json   # the webhooks' OpenAPI document`,
    `  curl http://127.0.0.1:${port}/metrics                      # calls, durations and runs, for Prometheus`,
    '',
    'Long work (answers at once, then poll the status address):',
    `  curl -X POST ${base}/reports -H 'content-type: application/json' -d '{"title":"Q3"}'`,
    `  curl ${base}/reports/job-1`,
    '',
    'Test address (an editor starts listening, then one call is captured):',
    `  curl -X POST http://127.0.0.1:${port}/api/editor/workflows/signup/listen &`,
    `  curl -X POST http://127.0.0.1:${port}/api/automation/webhook-test/signup -H 'content-type: application/json' -d '{"name":"Ada"}'`,
    '',
  ].join('\n'));
});

server.on('error', (error: NodeJS.ErrnoException) => {
  process.stderr.write(error.code === 'EADDRINUSE'
    ? `Port ${port} is in use${shared === undefined ? '; start with another one: PORT=3001 npm start' : ''}\n`
    : `Could not start the example: ${error.message}\n`);
  process.exitCode = 1;
  // The Redis connections would keep the process alive with nothing to serve.
  if (shared !== undefined) void shared.close().finally(() => process.exit(1));
});

if (shared !== undefined) {
  let stopping = false;
  const stop = async (): Promise<void> => {
    // A terminal's Ctrl-C reaches this process and cluster.ts, which forwards it: stop once.
    if (stopping) return;
    stopping = true;
    const closed = new Promise((resolve) => server.close(resolve));
    // Closing the registry ends this instance's test listens, so their long-polling editor requests answer.
    await shared.close().catch((error: unknown) => {
      process.stderr.write(`Closing the webhook registry failed: ${String(error)}\n`);
      process.exitCode = 1;
    });
    // A request still running after a grace period is cut off rather than holding the shutdown.
    setTimeout(() => server.closeAllConnections(), 2000).unref();
    await closed;
    // Background work (a report still being computed) would keep the process alive: it is abandoned.
    process.exit();
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  // Started by cluster.ts with an IPC channel: stop as well when that parent goes away, however it ended.
  process.on('disconnect', () => void stop());
}
