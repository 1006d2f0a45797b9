/**
 * What both Fastify host apps of the specs share, however they mount the middleware (middie or the plugin): a logger
 * whose records the specs read, a record of the host's hooks in the order Fastify ran them, a first `onRequest` hook
 * that sets a request id on Node's response and a header Fastify keeps until it sends, and routes of the app's own
 * (`/api/orders`, and `<mount>/notes`, whose body Fastify parses).
 */
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';

export interface HookRecord { hook: string; url: string; originalUrl: string; status: number }

export type LogRecord = { level: number; msg: string; [field: string]: unknown };

/** A running host app. */
export interface RecordingHost {
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every hook run of the host, in order. */
  hooks: HookRecord[];
  /** Fastify's log records (pino JSON), from `info` up. */
  logs: LogRecord[];
  close(): Promise<void>;
}

type Recorder = (request: { url: string; originalUrl: string }, reply: { statusCode: number }) => Promise<void>;

export interface HostApp {
  app: FastifyInstance;
  hooks: HookRecord[];
  logs: LogRecord[];
  /** A hook that records itself under `hook`. */
  record(hook: string): Recorder;
  /** Listens on a loopback port: the running host. */
  listen(): Promise<RecordingHost>;
}

/**
 * The app before the middleware is mounted. `firstHook`: the name the first `onRequest` hook records itself under
 * (undefined: it records nothing).
 */
export function hostApp(mount: string, options: Omit<FastifyServerOptions, 'logger'> = {}, firstHook?: string): HostApp {
  const logs: LogRecord[] = [];
  const hooks: HookRecord[] = [];
  const app = Fastify({ ...options, logger: { level: 'info', stream: { write: (line: string) => { logs.push(JSON.parse(line)); } } } });
  const record = (hook: string): Recorder => async (request, reply) => {
    hooks.push({ hook, url: request.url, originalUrl: request.originalUrl, status: reply.statusCode });
  };
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.setHeader('x-request-id', request.id);
    reply.header('x-fastify-header', 'set with reply.header');
    if (firstHook !== undefined) await record(firstHook)(request, reply);
  });
  app.get('/api/orders', async () => [{ id: 1 }]);
  app.post(`${mount}/notes`, async (request) => ({ parsedByFastify: request.body }));
  return {
    app, hooks, logs, record,
    async listen() {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { app, origin: `http://127.0.0.1:${port}`, hooks, logs, close: () => app.close() };
    },
  };
}
