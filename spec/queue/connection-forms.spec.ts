/**
 * The forms of queue mode's `connection` as users write them: each accepted form carries a call through a queue and a
 * worker against a real server (credentials, database and TLS reaching it), and each refused form gets a TypeError
 * that names what it was given, never its values, and lists what is taken.
 */
import { expect } from 'chai';
import request from 'supertest';
import express from 'express';
import { createClient } from 'redis';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor } from 'workflow-webhooks';
import { createWebhookQueue, createWebhookWorker, type QueueConnection } from 'workflow-webhooks/queue';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { RedisSentinelGroup } from '../support/redis-topologies.js';
import { findService, markNotRun } from '../support/services.js';
import { makeTlsFiles, OPENSSL, type TlsFiles } from '../support/tls-files.js';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };
const ACCEPTED = 'it takes a node-redis client (createClient(), createCluster() or createSentinel() of the redis package), a Redis URL ' +
  '(redis:// or rediss://), { host, port, username, password, db, tls }, { sentinels: [{ host, port }], name, username, password, db, tls }, ' +
  'a PostgreSQL URL (postgres:// or postgresql://), a node-postgres Pool, or a pool config { connectionString } or { host, port, user, password, database }.';

/** Built like an ioredis client: `defineCommand` beside node-redis' own names. */
class Redis {
  defineCommand(): void {}
  duplicate(): Redis { return this; }
  async connect(): Promise<void> {}
  async sendCommand(): Promise<void> {}
}

describe('queue mode: the forms of connection', () => {
  const refusals: Array<[string, unknown, string]> = [
    ['a number', 6379, 'got a number'],
    ['nothing', undefined, 'got nothing'],
    ['an ioredis client', new Redis(), 'got an ioredis client (Redis); queue mode connects through node-redis, not ioredis'],
    ['an instance of another class', new Map([['password', 'hunter2']]), 'got an instance of Map'],
    ['a URL of another scheme', 'http://admin:hunter2@127.0.0.1:6379', 'got a string that is not a redis://, rediss://, postgres:// or postgresql:// URL'],
    ['a PostgreSQL pool config whose connectionString is no PostgreSQL URL', { connectionString: 'mysql://admin:hunter2@127.0.0.1/app' },
      'got an object with connectionString (connectionString must be a postgres:// or postgresql:// URL)'],
    ['a PostgreSQL pool config with a port out of range', { host: '127.0.0.1', port: 0, database: 'app', password: 'hunter2' },
      'got an object with host, port, database, password (port must be a whole number from 1 to 65535)'],
    ['an object of neither shape', { hostname: '127.0.0.1', pass: 'hunter2' }, 'got an object with hostname, pass (hostname, pass not taken)'],
    ['server options with an option node-redis has no use for', { host: '127.0.0.1', password: 'hunter2', lazyConnect: true }, 'got an object with host, password, lazyConnect (lazyConnect not taken)'],
    ['server options with a port out of range', { host: '127.0.0.1', port: 70000, password: 'hunter2' }, 'got an object with host, port, password (port must be a whole number from 1 to 65535)'],
    ['Sentinel options without sentinels', { sentinels: [], name: 'mymaster', password: 'hunter2' }, 'got an object with sentinels, name, password (sentinels must list at least one { host, port })'],
  ];
  for (const [what, connection, says] of refusals) {
    it(`refuses ${what} with a TypeError that names it and lists what is taken, without its values`, () => {
      for (const factory of ['createWebhookQueue', 'createWebhookWorker'] as const) {
        const make = factory === 'createWebhookQueue'
          ? () => createWebhookQueue({ connection: connection as QueueConnection, logger: SILENT })
          : () => createWebhookWorker({ connection: connection as QueueConnection, logger: SILENT, executor: () => ({ items: [] }) });
        let thrown: unknown;
        try { make(); } catch (error) { thrown = error; }
        expect(thrown).to.be.instanceOf(TypeError);
        expect((thrown as TypeError).message).to.equal(`workflow-webhooks/queue: option connection of ${factory} ${says}; ${ACCEPTED}`);
        expect((thrown as TypeError).message).not.to.include('hunter2');
      }
    });
  }

  if (findService(REDIS) === undefined || findService(OPENSSL) === undefined) {
    markNotRun('queue mode: accepted forms of connection against real servers', findService(REDIS) === undefined ? REDIS : OPENSSL);
    return;
  }

  describe('each accepted form against a real server', function () {
    this.timeout(30_000);
    let server: RedisServer;
    let tlsServer: RedisServer;
    let tls: TlsFiles;
    let sentinels: RedisSentinelGroup;
    before(async () => {
      tls = makeTlsFiles();
      [server, tlsServer, sentinels] = await Promise.all([
        // The default user needs a password, and one more user has its own.
        RedisServer.start(() => ['--requirepass', 'default-secret', '--user', 'alice', 'on', '>alice-secret', '~*', '&*', '+@all']),
        RedisServer.start((port) => ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.cert, '--tls-key-file', tls.key,
          '--tls-ca-cert-file', tls.ca, '--tls-auth-clients', 'no']),
        RedisSentinelGroup.start(findService(REDIS) as string),
      ]) as [RedisServer, RedisServer, RedisSentinelGroup];
    });
    after(async () => {
      await Promise.all([server?.stop(), tlsServer?.stop(), sentinels?.stop()]);
      tls?.remove();
    });

    /** A lastNode call through a queue and a worker both given `connection`; resolves the queue's name. */
    async function roundTrip(connection: QueueConnection, name: string): Promise<void> {
      const queue = createWebhookQueue({ connection, name, logger: SILENT });
      const worker = createWebhookWorker({ connection, name, logger: SILENT, executor: (run) => ({ items: [{ json: { echoed: run.items[0]?.json.body } }] }) });
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'forms', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST', responseMode: 'lastNode' } }] });
      const middleware = createWebhookMiddleware(registry, queue.executor as WebhookExecutor, { logger: SILENT });
      try {
        const res = await request(express().use('/hooks', middleware)).post('/hooks/webhook/in').send({ via: name });
        expect([res.status, res.body]).to.deep.equal([200, { echoed: { via: name } }]);
      } finally {
        await middleware.close({ timeoutMs: 200 });
        await worker.close({ timeoutMs: 200 });
        await queue.close();
      }
    }

    /** The queue's keys in one database of the password-protected server. */
    async function keysIn(database: number, name: string): Promise<string[]> {
      const client = createClient({ url: server.url, username: 'alice', password: 'alice-secret', database });
      client.on('error', () => undefined);
      await client.connect();
      try {
        return await client.keys(`bull:${name}:*`);
      } finally {
        client.destroy();
      }
    }

    it('takes a Redis URL with a user, password and database', async () => {
      await roundTrip(`redis://alice:alice-secret@127.0.0.1:${server.port}/3`, 'by-url');
      expect(await keysIn(3, 'by-url')).not.to.deep.equal([]);
      expect(await keysIn(0, 'by-url')).to.deep.equal([]);
    });

    it('takes BullMQ\'s { host, port, username, password, db }', async () => {
      await roundTrip({ host: '127.0.0.1', port: server.port, username: 'alice', password: 'alice-secret', db: 2 }, 'by-options');
      expect(await keysIn(2, 'by-options')).not.to.deep.equal([]);
      expect(await keysIn(0, 'by-options')).to.deep.equal([]);
    });

    it('takes BullMQ\'s { host, port, password } for the default user, with BullMQ\'s maxRetriesPerRequest: null beside it', async () => {
      await roundTrip({ host: '127.0.0.1', port: server.port, password: 'default-secret', maxRetriesPerRequest: null }, 'by-password');
      expect(await keysIn(0, 'by-password')).not.to.deep.equal([]);
    });

    it('takes BullMQ\'s { host, port, tls } and checks the server\'s certificate against the CA given', async () => {
      await roundTrip({ host: '127.0.0.1', port: tlsServer.port, tls: { ca: tls.caPem } }, 'by-tls');
      // Without the CA the server's certificate is not trusted: the connection fails and says why, and calls are refused.
      const failures: string[] = [];
      const logger = { error: (): void => undefined, warn: (fields: { err?: { message?: string } }) => { if (fields.err?.message !== undefined) failures.push(fields.err.message); } };
      const queue = createWebhookQueue({ connection: { host: '127.0.0.1', port: tlsServer.port, tls: true }, name: 'untrusted', logger, enqueueTimeoutMs: 300 });
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'forms', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST' } }] });
      const middleware = createWebhookMiddleware(registry, queue.executor as WebhookExecutor, { logger: SILENT });
      try {
        const res = await request(express().use('/hooks', middleware)).post('/hooks/webhook/in').send({});
        expect([res.status, res.body.code]).to.deep.equal([503, 'QUEUE_UNAVAILABLE']);
        expect(failures.some((message) => /certificate/.test(message)), failures.join('; ')).to.equal(true);
      } finally {
        await middleware.close({ timeoutMs: 200 });
        await queue.close();
      }
    });

    it('takes BullMQ\'s Sentinel form { sentinels: [{ host, port }], name }', async () => {
      await roundTrip({ sentinels: sentinels.sentinelRootNodes, name: sentinels.name }, 'by-sentinels');
    });
  });
});
