/**
 * One instance of a backend, as a process of its own: node:http, the webhook middleware, and a Redis registry on
 * REDIS_URL under PREFIX. The parent drives it over IPC (activate, deactivate, listen, the listen's result) and
 * calls it over HTTP; its executor answers with the instance's number, so a test sees which instance ran a call, and
 * counts its runs (`runs`).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';
import { createWebhookMiddleware, type TestListenHandle, type WorkflowWebhooks } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';

export type Command =
  | { id: number; op: 'activate'; workflow: WorkflowWebhooks }
  | { id: number; op: 'deactivate'; workflowId: string }
  | { id: number; op: 'listen'; workflow: WorkflowWebhooks }
  | { id: number; op: 'result'; listenId: string }
  | { id: number; op: 'runs' }
  | { id: number; op: 'stop' };

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; code?: string; message: string };

const name = process.env.INSTANCE ?? '0';
const client = createClient({ url: process.env.REDIS_URL });
client.on('error', () => undefined);
const registry = new RedisWebhookRegistry({ client, prefix: process.env.PREFIX, commandTimeoutMs: 500, onEvent: () => undefined });
await registry.ready();
let runs = 0;
const middleware = createWebhookMiddleware(registry, async (run) => {
  runs += 1;
  return { items: [{ json: { instance: name, body: run.items[0]?.json.body ?? null } }] };
}, { onWorkflowError: () => undefined });
const server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const handles = new Map<string, TestListenHandle>();

async function run(command: Command): Promise<unknown> {
  switch (command.op) {
    case 'activate':
      return (await registry.activate(command.workflow)).length;
    case 'deactivate':
      return registry.deactivate(command.workflowId);
    case 'listen': {
      const handle = await registry.listenForTest(command.workflow);
      handles.set(handle.listenId, handle);
      return handle.listenId;
    }
    case 'result': {
      const result = await (handles.get(command.listenId) as TestListenHandle).result;
      return result.status === 'received' ? { status: result.status, body: result.run.items[0]?.json.body, output: result.output } : result;
    }
    case 'runs':
      return runs;
    case 'stop':
      await registry.close();
      server.closeAllConnections();
      server.close();
      client.destroy();
      return true;
  }
}

function reply(message: Reply, last: boolean): void {
  // The parent may be gone already; then there is nobody to answer.
  process.send?.(message, undefined, {}, () => { if (last) process.disconnect?.(); });
}

process.on('message', (command: Command) => {
  run(command).then(
    (value) => reply({ id: command.id, ok: true, value }, command.op === 'stop'),
    (error: { code?: string; message?: string }) => reply({ id: command.id, ok: false, code: error.code, message: String(error.message) }, false),
  );
});
process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
