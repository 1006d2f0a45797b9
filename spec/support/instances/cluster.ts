/**
 * Several instances of a backend on one Redis, for the specs: in this process (three registries, three node:http
 * servers) or as child processes (instance.ts), behind one interface, so the same tests run both ways.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { createWebhookMiddleware, type TestListenHandle, type TestListenResult, type WorkflowWebhooks } from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import type { Command, Reply } from './instance.js';

export interface Cluster {
  urls: string[];
  activate(instance: number, workflow: WorkflowWebhooks): Promise<unknown>;
  deactivate(instance: number, workflowId: string): Promise<unknown>;
  /** Starts a listen on the instance; resolves what its handle's result gives (run body and output). */
  listen(instance: number, workflow: WorkflowWebhooks): Promise<{ result: Promise<unknown> }>;
  /** How many runs the instance's executor has started. */
  runs(instance: number): Promise<number>;
  stop(): Promise<void>;
}

type Distributive<T> = T extends unknown ? Omit<T, 'id'> : never;

export async function clusterInProcess(redisUrl: string, prefix: string, size = 3): Promise<Cluster> {
  const parts = await Promise.all(Array.from({ length: size }, async (_, index) => {
    const client = createClient({ url: redisUrl });
    client.on('error', () => undefined);
    const registry = new RedisWebhookRegistry({ client, prefix, commandTimeoutMs: 500, onEvent: () => undefined });
    await registry.ready();
    const counted = { runs: 0 };
    const middleware = createWebhookMiddleware(registry, async (run) => {
      counted.runs += 1;
      return { items: [{ json: { instance: String(index), body: run.items[0]?.json.body ?? null } }] };
    }, { onWorkflowError: () => undefined });
    const server: Server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { client, registry, server, counted, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }));
  const at = (index: number): (typeof parts)[number] => parts[index] as (typeof parts)[number];
  const outcome = (result: TestListenResult): unknown =>
    (result.status === 'received' ? { status: result.status, body: result.run.items[0]?.json.body, output: result.output } : result);
  return {
    urls: parts.map((part) => part.url),
    activate: async (index, workflow) => (await at(index).registry.activate(workflow)).length,
    deactivate: (index, workflowId) => at(index).registry.deactivate(workflowId),
    listen: async (index, workflow) => {
      const handle: TestListenHandle = await at(index).registry.listenForTest(workflow);
      return { result: handle.result.then(outcome) };
    },
    runs: (index) => Promise.resolve(at(index).counted.runs),
    stop: async () => {
      for (const part of parts) {
        await part.registry.close();
        part.server.closeAllConnections();
        await new Promise((resolve) => part.server.close(resolve));
        part.client.destroy();
      }
    },
  };
}

export async function clusterOfProcesses(redisUrl: string, prefix: string, size = 3): Promise<Cluster> {
  const entry = fileURLToPath(new URL('./instance.ts', import.meta.url));
  let next = 0;
  const pending = new Map<number, (reply: Reply) => void>();
  const children = await Promise.all(Array.from({ length: size }, (_, index) => new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const child = fork(entry, [], {
      execArgv: ['--import', 'tsx', '--conditions=workflow-webhooks-source'],
      env: { ...process.env, REDIS_URL: redisUrl, PREFIX: prefix, INSTANCE: String(index) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (message: Reply | { type: 'ready'; port: number }) => {
      if ('type' in message) resolve({ child, url: `http://127.0.0.1:${message.port}` });
      else pending.get(message.id)?.(message);
    });
    child.once('exit', (code) => reject(new Error(`instance ${index} exited with ${String(code)}`)));
  })));
  const send = (index: number, command: Distributive<Command>): Promise<unknown> => new Promise((resolve, reject) => {
    const id = (next += 1);
    pending.set(id, (reply) => {
      pending.delete(id);
      if (reply.ok) resolve(reply.value);
      else reject(Object.assign(new Error(reply.message), { code: reply.code }));
    });
    children[index]?.child.send({ ...command, id });
  });
  return {
    urls: children.map((child) => child.url),
    activate: (index, workflow) => send(index, { op: 'activate', workflow }),
    deactivate: (index, workflowId) => send(index, { op: 'deactivate', workflowId }),
    listen: async (index, workflow) => {
      const listenId = await send(index, { op: 'listen', workflow }) as string;
      return { result: send(index, { op: 'result', listenId }) };
    },
    runs: async (index) => await send(index, { op: 'runs' }) as number,
    stop: async () => {
      await Promise.all(children.map(async ({ child }, index) => {
        if (child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        void send(index, { op: 'stop' }).catch(() => undefined);
        const killer = setTimeout(() => child.kill(), 3000);
        await exited;
        clearTimeout(killer);
      }));
    },
  };
}
