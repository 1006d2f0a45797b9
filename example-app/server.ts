/** Starts the example backend: `npm start` (PORT defaults to 3000). */
import { createOrdersApp } from './app.js';

const app = await createOrdersApp();
const port = Number(process.env.PORT ?? 3000);
const server = app.listen(port, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${port}/api/automation/webhook`;
  process.stdout.write([
    `Orders API with workflow webhooks on http://127.0.0.1:${port}`,
    '',
    'Try:',
    `  curl '${base}/hello?name=Ada'`,
    `  curl -X POST ${base}/orders -H 'content-type: application/json' -d '{"item":"Tea"}'`,
    `  curl http://127.0.0.1:${port}/api/orders`,
    `  curl ${base}/orders/2`,
    `  curl -X PUT ${base}/orders/2 -H 'content-type: application/json' -d '{"status":"packed"}'`,
    `  curl -i -X DELETE ${base}/orders/2     # 405, Allow: GET, PUT`,
    `  curl -i ${base}/nothing                # 404 with a hint`,
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
    ? `Port ${port} is in use; start with another one: PORT=3001 npm start\n`
    : `Could not start the example: ${error.message}\n`);
  process.exitCode = 1;
});
