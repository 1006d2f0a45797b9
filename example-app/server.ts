/**
 * Starts the example backend: `npm start` (PORT defaults to 3000). With DATABASE_URL (PostgreSQL) or REDIS_URL set it
 * becomes one instance of several sharing one registry and call log (example-app/shared-store.ts): INSTANCE names it
 * in the `x-instance` header, ACTIVATE=0 leaves activating to another instance. example-app/cluster.ts starts three.
 */
import { createOrdersApp } from './app.js';
import { openSharedStore, type SharedStore } from './shared-store.js';

const instance = process.env.INSTANCE;
const port = Number(process.env.PORT ?? 3000);

let shared: SharedStore | undefined;
try {
  shared = await openSharedStore(process.env);
} catch (error) {
  const where = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '' ? 'PostgreSQL' : `Redis at ${String(process.env.REDIS_URL)}`;
  process.stderr.write(`Could not open the webhook registry in ${where}: ${(error as Error).message}\n`);
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
    process.stdout.write(`Instance ${instance ?? '(unnamed)'} of the orders API on http://127.0.0.1:${port}, webhooks in ${shared.name}\n`);
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
  // The store's connections would keep the process alive with nothing to serve.
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
