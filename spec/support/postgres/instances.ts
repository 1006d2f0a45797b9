/**
 * Several instances of a backend on one PostgreSQL, for the specs: each its own pg.Pool, PostgresWebhookRegistry,
 * middleware (with waiting webhooks) and node:http server, all on one schema. The executor answers with the
 * instance's number and the call's body, and a run started at `POST suspend` suspends, giving its resume address.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createWebhookMiddleware } from 'workflow-webhooks';
import { PostgresWebhookRegistry, type PostgresRegistryEvent } from 'workflow-webhooks/postgres';

export interface PostgresInstance {
  url: string;
  registry: PostgresWebhookRegistry;
  events: PostgresRegistryEvent[];
  /** How many runs the executor started here. */
  runs: number;
}

export interface PostgresInstances {
  all: PostgresInstance[];
  /** Resume addresses (path and query) of the runs that suspended, in order. */
  resumes: string[];
  stop(): Promise<void>;
}

export async function postgresInstances(databaseUrl: string, schema: string, size = 3): Promise<PostgresInstances> {
  const resumes: string[] = [];
  const closers: Array<() => Promise<void>> = [];
  const all = await Promise.all(Array.from({ length: size }, async (_, index): Promise<PostgresInstance> => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
    pool.on('error', () => undefined);
    const events: PostgresRegistryEvent[] = [];
    // A loaded CI machine may take seconds for a change; the specs say what happens, not how fast.
    const registry = new PostgresWebhookRegistry({ pool, schema, commandTimeoutMs: 10_000, onEvent: (event) => events.push(event) });
    await registry.ready();
    const instance: PostgresInstance = { url: '', registry, events, runs: 0 };
    const middleware = createWebhookMiddleware(registry, async (run) => {
      instance.runs += 1;
      if (run.resume !== undefined) return { items: [{ json: { instance: String(index), resumed: run.resume.state } }] };
      if (run.workflowId === 'suspends') {
        const { resumeUrl } = await run.suspend({ state: { from: index }, responseMode: 'lastNode' });
        const parsed = new URL(resumeUrl);
        resumes.push(`${parsed.pathname}${parsed.search}`);
      }
      return { items: [{ json: { instance: String(index), body: run.items[0]?.json.body ?? null } }] };
    }, { onWorkflowError: () => undefined, waitingSecret: 'a-waiting-secret-of-at-least-32-characters', logger: { error: () => undefined, warn: () => undefined } });
    const server: Server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    instance.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    closers.push(async () => {
      await registry.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    });
    return instance;
  }));
  return { all, resumes, stop: async () => { for (const close of closers.splice(0)) await close(); } };
}

/** One JSON call; the status and the parsed body (or null). */
export async function call(url: string, method = 'POST', body: unknown = { n: 1 }): Promise<{ status: number; body: Record<string, unknown> | null; headers: Headers }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) as Record<string, unknown>, headers: res.headers };
}
