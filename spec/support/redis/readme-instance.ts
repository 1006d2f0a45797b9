/**
 * One instance of a backend that follows the "Several instances" code of docs/instances.md as printed: the block is read from that guide,
 * compiled to JavaScript, its imports given the real modules, and run with an Express app and an executor, which the
 * block leaves to the reader. REDIS_URL says where Redis is; DROP_ERROR_LISTENER=1 runs the block without its
 * `client.on('error', …)` line, as a user who skipped it would. It activates one workflow, listens on a free loopback
 * port and says `{ port }` over IPC.
 */
import express from 'express';
import { createClient } from 'redis';
import ts from 'typescript';
import { createWebhookMiddleware, type WebhookExecutor, type WebhookRegistry } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { docBlock } from '../readme/blocks.js';

let block = docBlock('docs/instances.md', '# Several instances');
if (process.env.DROP_ERROR_LISTENER === '1') block = block.split('\n').filter((line) => !line.includes("client.on('error'")).join('\n');
const body = ts.transpileModule(block, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
  .split('\n').filter((line) => !line.startsWith('import ')).join('\n');

const app = express();
const executor: WebhookExecutor = (run) => ({ items: [{ json: { served: run.nodeName } }] });
const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<{ registry: WebhookRegistry }>;
const run = new AsyncFunction('createClient', 'createWebhookMiddleware', 'RedisWebhookRegistry', 'app', 'executor', `${body}\nreturn { registry };`);
const { registry } = await run(createClient, createWebhookMiddleware, RedisWebhookRegistry, app, executor);
await registry.activate({ workflowId: 'orders', nodes: [{ name: 'Orders', parameters: { path: 'orders', httpMethod: 'POST', responseMode: 'lastNode' } }] });
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });
});
