import { createClient } from 'redis';
import { directoryBinaryStore, redisBinaryStore, type QueueRedisClient } from 'workflow-webhooks/queue';
import { describeBinaryStoreContract } from '../../support/queue/store-contract.js';
import { RedisServer, REDIS } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';
import { makeTempDir, type TempDir } from '../../support/temp-dir.js';

/** Both binary stores queue mode ships pass the one store contract. */
describe('binary stores', () => {
  let dir: TempDir;
  before(() => { dir = makeTempDir(); });
  after(() => { dir.remove(); });
  describeBinaryStoreContract('directory', (maxBytes) => directoryBinaryStore({ directory: `${dir.path}/shared`, maxBytes }));

  if (findService(REDIS) === undefined) {
    markNotRun('the Redis binary store', REDIS);
    return;
  }
  let server: RedisServer;
  let client: ReturnType<typeof createClient>;
  before(async () => {
    server = await RedisServer.start() as RedisServer;
    client = createClient({ url: server.url });
    client.on('error', () => undefined);
    await client.connect();
  });
  after(async () => {
    client.destroy();
    await server.stop();
  });
  describeBinaryStoreContract('Redis', (maxBytes) => {
    const store = redisBinaryStore({ maxBytes });
    store.attach?.({ client: client as unknown as QueueRedisClient, key: (id) => `spec:binary:${id}` });
    return store;
  });
});
