import { directoryBinaryStore, redisBinaryStore } from 'workflow-webhooks/queue';
import { routed } from '../../../lib/queue/redis-route.js';
import { topologyOf } from '../../../lib/redis/topology.js';
import type { QueueRedisClient } from '../../../lib/queue/connection.js';
import { describeBinaryStoreContract } from '../../support/queue/store-contract.js';
import { REDIS } from '../../support/redis-server.js';
import { TOPOLOGIES, type AnyRedisClient, type RunningTopology } from '../../support/redis/topologies.js';
import { findService, markNotRun } from '../../support/services.js';
import { makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { closeAll } from '../../support/close-all.js';

/** Both binary stores queue mode ships pass the one store contract; the Redis one on every topology. */
describe('binary stores', () => {
  let dir: TempDir;
  before(() => { dir = makeTempDir(); });
  after(() => { dir?.remove(); });
  describeBinaryStoreContract('directory', (maxBytes) => directoryBinaryStore({ directory: `${dir.path}/shared`, maxBytes }));

  if (findService(REDIS) === undefined) {
    markNotRun('the Redis binary store', REDIS);
    return;
  }
  for (const starter of TOPOLOGIES) {
    describe(`on ${starter.name}`, () => {
      let topology: RunningTopology;
      let client: AnyRedisClient;
      before(async function () {
        this.timeout(20_000);
        topology = await starter.start() as RunningTopology;
        client = await topology.client();
      });
      after(() => closeAll(() => client?.destroy(), () => topology?.stop()));
      // The store gets what a queue gives it: commands routed to the node that holds the queue's keys.
      describeBinaryStoreContract('Redis', (maxBytes) => {
        const store = redisBinaryStore({ maxBytes });
        const queueKeys = topologyOf(client) === 'cluster' ? '{bull}:spec' : 'bull:spec';
        store.attach?.({ kind: 'redis', client: routed(client as unknown as QueueRedisClient, topologyOf(client), `${queueKeys}:`), key: (id) => `${queueKeys}:wh:binary:${id}` });
        return store;
      });
    });
  }
});
