import { expect } from 'chai';
import { createClient } from 'redis';
import { createWebhookQueue, createWebhookWorker } from 'workflow-webhooks/queue';
import { freePort, REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';

if (findService(REDIS) === undefined) {
  markNotRun('queue mode\'s connections', REDIS);
} else {
  describe('queue mode given a node-redis client', function () {
    this.timeout(20_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });

    function recording(): { warnings: string[]; logger: { warn(fields: Record<string, unknown>, message?: string): void; error(): void } } {
      const warnings: string[] = [];
      return { warnings, logger: { warn: (_fields, message) => { warnings.push(message ?? ''); }, error: () => undefined } };
    }

    it('warns once through its logger when the client has no error listener, since that client alone would crash the process', async () => {
      const client = createClient({ url: server.url });
      const { warnings, logger } = recording();
      const queue = createWebhookQueue({ connection: client, name: 'no-listener', logger });
      const worker = createWebhookWorker({ connection: client, name: 'no-listener', logger, executor: () => ({ items: [] }) });
      try {
        await Promise.all([queue.ready(), worker.ready()]);
        const about = warnings.filter((message) => /no 'error' listener/.test(message));
        expect(about).to.have.length(1);
        expect(about[0]).to.match(/client\.on\('error'/);
      } finally {
        await worker.close();
        await queue.close();
      }
    });

    it('closes a worker that never reached Redis instead of waiting for the connection forever, before or after its first try', async () => {
      const unreachable = `redis://127.0.0.1:${await freePort()}`;
      const early = createWebhookWorker({ connection: unreachable, name: 'unreachable', logger: recording().logger, executor: () => ({ items: [] }) });
      expect(await early.close().then(() => 'closed')).to.equal('closed');
      const { warnings, logger } = recording();
      const late = createWebhookWorker({ connection: unreachable, name: 'unreachable', logger, executor: () => ({ items: [] }) });
      for (let tries = 0; !warnings.some((message) => /^queue worker: Redis failed/.test(message)); tries += 1) {
        if (tries > 500) throw new Error('the worker never said its connection failed');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await late.close().then(() => 'closed')).to.equal('closed');
      expect(await late.ready().then(() => 'ready', () => 'never ready')).to.equal('never ready');
    });

    it('says nothing of a client that has its listener', async () => {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      const { warnings, logger } = recording();
      const queue = createWebhookQueue({ connection: client, name: 'with-listener', logger });
      try {
        await queue.ready();
        expect(warnings.filter((message) => /listener/.test(message))).to.deep.equal([]);
      } finally {
        await queue.close();
      }
    });
  });
}
