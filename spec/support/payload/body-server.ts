/**
 * A backend in a process of its own for the specs that weigh what one big body costs the others: node:http, the
 * webhook middleware with its default limits, and one address (`POST /webhook/in`, answered on receipt). Its
 * own process, so that while it parses, the spec's clock and client keep running and see how long a second caller
 * waits. It tells the parent its port over IPC.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookMiddleware, MemoryWebhookRegistry } from 'workflow-webhooks';

const registry = new MemoryWebhookRegistry();
await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST' } }] });
const middleware = createWebhookMiddleware(registry, () => Promise.resolve({ items: [] }));
const server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => { server.closeAllConnections(); server.close(); });
