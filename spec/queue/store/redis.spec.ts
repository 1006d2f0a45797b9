import { expect } from 'chai';
import { createClient } from 'redis';
import { queueKeys } from '../../../lib/queue/keys.js';
import { resolveQueueOptions } from '../../../lib/queue/options.js';
import { openRedisLink } from '../../../lib/queue/store/redis.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';

if (findService(REDIS) === undefined) {
  markNotRun('queue mode\'s Redis store: refusal marks', REDIS);
} else {
  describe('queue mode\'s Redis store: refusal marks', function () {
    this.timeout(30_000);

    it('writes a refusal mark Redis did not take once it takes it again: a lost mark would let the job run', async () => {
      const server = await RedisServer.start() as RedisServer;
      const admin = createClient({ url: server.url });
      admin.on('error', () => undefined);
      await admin.connect();
      const host = createClient({ url: server.url });
      host.on('error', () => undefined);
      const options = resolveQueueOptions({ connection: host, name: 'marks', logger: { error: () => undefined, warn: () => undefined } });
      const opening = openRedisLink(options, { replicas: 0, replicaTimeoutMs: 1000 });
      try {
        const link = await opening.link;
        const key = queueKeys(options.prefix, options.name).refused('store-kept');
        // SET refused for a moment: every write of a mark fails meanwhile, with Redis's own refusal.
        await admin.sendCommand(['ACL', 'SETUSER', 'default', '-set']);
        link.markRefused('store-kept', 60_000);
        // The mark's write was tried and refused once Redis's ACL log holds the denied SET.
        // (An entry is a map or, in RESP2, a flat list of names and values.)
        const deniedSet = async (): Promise<boolean> => /"object"[:,]"set"/.test(JSON.stringify(await admin.sendCommand(['ACL', 'LOG'])));
        for (let tries = 0; tries < 250 && !(await deniedSet()); tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await deniedSet(), 'the mark\'s write refused by Redis').to.equal(true);
        expect(await admin.sendCommand(['EXISTS', key])).to.equal(0);
        await admin.sendCommand(['ACL', 'SETUSER', 'default', '+set']);
        for (let tries = 0; tries < 100 && await admin.sendCommand(['EXISTS', key]) as number === 0; tries += 1) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(await link.wasRefused('store-kept')).to.equal(true);
        const ttl = await admin.sendCommand(['PTTL', key]) as number;
        expect(ttl).to.be.within(1, 60_000);
      } finally {
        opening.close();
        admin.destroy();
        await server.stop();
      }
    });
  });
}
