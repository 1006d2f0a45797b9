import { expect } from 'chai';
import { createClient } from 'redis';
import { mayHaveApplied } from '../../lib/redis/failure-reasons.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { failureOf } from '../support/refusal.js';
import { findService, markNotRun } from '../support/services.js';

if (findService(REDIS) === undefined) {
  markNotRun('telling a Redis command that may have been carried out from one that was not', REDIS);
} else {
  describe('telling a Redis command that may have been carried out from one that was not', function () {
    this.timeout(30_000);

    it('counts a command whose connection closed before its reply as maybe carried out', async () => {
      const server = await RedisServer.start() as RedisServer;
      const client = createClient({ url: server.url, socket: { reconnectStrategy: false } });
      client.on('error', () => undefined);
      await client.connect();
      try {
        const waiting = failureOf(() => client.sendCommand(['BLPOP', 'never-filled', '10']));
        await new Promise((resolve) => setTimeout(resolve, 100));
        await server.kill();
        const error = await waiting;
        expect(mayHaveApplied(error), error.message).to.equal(true);
      } finally {
        client.destroy();
        await server.stop();
      }
    });

    it('counts Redis\'s own refusal, and a command a disconnected client never sent, as not carried out', async () => {
      const server = await RedisServer.start() as RedisServer;
      const client = createClient({ url: server.url, disableOfflineQueue: true, socket: { reconnectStrategy: false } });
      client.on('error', () => undefined);
      await client.connect();
      try {
        const refused = await failureOf(() => client.sendCommand(['SET', 'x']));
        expect(mayHaveApplied(refused), refused.message).to.equal(false);
        client.destroy();
        const unsent = await failureOf(() => client.sendCommand(['SET', 'x', '1']));
        expect(mayHaveApplied(unsent), unsent.message).to.equal(false);
      } finally {
        await server.stop();
      }
    });
  });
}
