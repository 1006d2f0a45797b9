/**
 * RedisHistoryStore keeps the history store contract on one redis-server, a Redis Cluster and Sentinel, read back
 * from Redis itself (every key of its prefix), and beside the contract: calls expire from Redis without a prune,
 * a sparse filter is answered in bounded pages, it starts while Redis is down, and it refuses options it cannot use.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createClient } from 'redis';
import { WebhookError } from '../../lib/core/errors.js';
import type { HistoryRetention, HistoryStore } from '../../lib/core/history.js';
import { RedisHistoryStore } from 'workflow-webhooks/redis';
import { describeHistoryStoreContract, historyRecordOf } from '../support/history-contract/index.js';
import { findAll, idsOf, settledWithin, until } from '../support/history-contract/fixture.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { NODE_REDIS_5, TOPOLOGIES, type AnyRedisClient, type RunningTopology, type TopologyStarter } from '../support/redis/topologies.js';

const TITLE = 'RedisHistoryStore';

/** Every key of a prefix and what it holds (string, hash fields and values, zset members), read in one script. */
const DUMP = `
local found = {}
for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
  local kind = redis.call('TYPE', key)['ok']
  local value = {kind}
  if kind == 'string' then value = {redis.call('GET', key)}
  elseif kind == 'hash' then value = redis.call('HGETALL', key)
  elseif kind == 'zset' then value = redis.call('ZRANGE', key, 0, -1) end
  found[#found + 1] = key
  found[#found + 1] = table.concat(value, '\\n')
end
return found`;

/** When each key expires, epoch ms (-1: never, -2: no such key). */
const EXPIRY_TIMES = `
local times = {}
for _, key in ipairs(KEYS) do times[#times + 1] = redis.call('PEXPIRETIME', key) end
return times`;

/** The keys a store was given and made: the prefix as given, and as its keys really start (a hash tag on a cluster). */
interface Opened { prefix: string; keyPrefix: string; retention: HistoryRetention }

/** Runs a script through a client of any topology (a cluster routes it by its first key). */
function evaluate(client: AnyRedisClient, script: string, keys: string[], args: string[]): Promise<unknown> {
  const run = (client as unknown as { eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown> }).eval;
  return run.call(client, script, { keys, arguments: args });
}

/** Key and value pairs of every key under the store's prefix, read through `client` (routed by the store's index key). */
async function dump(client: AnyRedisClient, keyPrefix: string): Promise<Array<[string, string]>> {
  const reply = await evaluate(client, DUMP, [`${keyPrefix}history`], [`${keyPrefix}*`]) as string[];
  const pairs: Array<[string, string]> = [];
  for (let at = 0; at < reply.length; at += 2) pairs.push([String(reply[at]), String(reply[at + 1])]);
  return pairs;
}

/**
 * One redis-server that keeps its data across a crash (an append-only file written before each answer, in a folder
 * of its own), so the outage cases can kill it and start it again on the same port with the calls still there, as a
 * production Redis with persistence comes back.
 */
const ONE_DURABLE_SERVER: TopologyStarter = {
  name: 'one redis-server',
  async start() {
    const folder = mkdtempSync(join(tmpdir(), 'wwh-history-'));
    const server = await RedisServer.start(() => ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', folder]);
    if (server === undefined) return undefined;
    const make = (): AnyRedisClient => {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      return client as AnyRedisClient;
    };
    return {
      name: 'one redis-server',
      url: server.url,
      server,
      make,
      client: async () => {
        const client = make();
        await client.connect();
        return client;
      },
      stop: async () => {
        await server.stop();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  },
};

async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  return work.then(() => undefined, (error: unknown) => (error instanceof WebhookError ? error.code : String(error)));
}

if (findService(REDIS) === undefined) {
  markNotRun(`${TITLE} keeps the history store contract`, REDIS);
} else {
  for (const starter of [ONE_DURABLE_SERVER, ...TOPOLOGIES.filter((one) => one.name !== 'one redis-server'), ...NODE_REDIS_5]) {
    describe(`${TITLE} on ${starter.name}`, function () {
      this.timeout(30_000);
      let topology: RunningTopology;
      let one: AnyRedisClient;
      let two: AnyRedisClient;
      let next = 0;
      const opened = new WeakMap<HistoryStore, Opened>();
      const made: HistoryStore[] = [];

      before(async () => {
        topology = await starter.start() as RunningTopology;
        [one, two] = await Promise.all([topology.client(), topology.client()]);
      });
      after(async () => {
        await Promise.all(made.splice(0).map((store) => store.close?.()));
        one?.destroy();
        two?.destroy();
        await topology?.stop();
      });

      function openOver(client: AnyRedisClient, prefix: string, retention: Partial<HistoryRetention> = {}): RedisHistoryStore {
        const store = new RedisHistoryStore({ client, prefix, ...retention });
        // On a cluster an untagged prefix is wrapped in a hash tag: the raw reads look where the keys really are.
        const keyPrefix = topology.name.startsWith('Redis Cluster') ? `{${prefix}}` : prefix;
        opened.set(store, { prefix, keyPrefix, retention: store.retention });
        return store;
      }
      const openedOf = (store: HistoryStore): Opened => opened.get(store) ?? expect.fail('a store this spec did not open');

      describeHistoryStoreContract(`${TITLE} on ${starter.name}`, () => ({
        open: (retention) => Promise.resolve(openOver(one, `history-${process.pid}-${(next += 1)}:`, retention)),
        rawIds: async (store) => {
          const { keyPrefix } = openedOf(store);
          return (await dump(one, keyPrefix)).map(([key]) => key).filter((key) => key.startsWith(`${keyPrefix}history:`))
            .map((key) => key.slice(`${keyPrefix}history:`.length));
        },
        rawText: async (store) => (await dump(one, openedOf(store).keyPrefix)).map((pair) => pair.join('\n')).join('\n'),
        second: (store) => {
          const { prefix, retention } = openedOf(store);
          return Promise.resolve(openOver(two, prefix, retention));
        },
        ...(topology.server === undefined ? {} : {
          outage: { stop: () => (topology.server as RedisServer).kill(), start: () => (topology.server as RedisServer).restart() },
        }),
      }));

      describe('beside the contract', () => {
        it('lets Redis itself remove a call once it is older than maxAgeMs, index and all, without a prune', async () => {
          const store = openOver(one, `expiring-${process.pid}-${(next += 1)}:`, { maxAgeMs: 3000 });
          made.push(store);
          const record = historyRecordOf(1, { at: Date.now() });
          await store.append([record]);
          const { keyPrefix } = openedOf(store);
          const keys = [`${keyPrefix}history`, `${keyPrefix}history:${record.id}`];
          expect(await evaluate(one, EXPIRY_TIMES, keys, []), 'when each key expires').to.deep.equal([record.at + 3000, record.at + 3000]);
          await until(async () => (await dump(one, keyPrefix)).length === 0, 10_000, 'every key of the prefix gone');
          expect(await store.get(record.id)).to.equal(undefined);
        });

        it('drops from its index, on the next prune, a call Redis evicted (maxmemory) and counts it', async () => {
          const store = openOver(one, `evicted-${process.pid}-${(next += 1)}:`);
          made.push(store);
          const records = [historyRecordOf(1), historyRecordOf(2), historyRecordOf(3)];
          await store.append(records);
          const { keyPrefix } = openedOf(store);
          await evaluate(one, "return redis.call('DEL', KEYS[1])", [`${keyPrefix}history:${records[0]?.id ?? ''}`], []);
          expect(await store.prune()).to.equal(1);
          expect(await evaluate(one, "return redis.call('ZRANGE', KEYS[1], 0, -1)", [`${keyPrefix}history`], [])).to.deep.equal(idsOf(records.slice(1)));
        });

        it('answers a filter few calls match in pages that read at most 2 000 calls each, then gives `next`', async () => {
          const store = openOver(one, `sparse-${process.pid}-${(next += 1)}:`);
          made.push(store);
          const wanted = historyRecordOf(1, { workflowId: 'wf-rare' });
          await store.append([wanted, ...Array.from({ length: 2_100 }, (_, index) => historyRecordOf(index + 2))]);
          const first = await store.find({ workflowId: 'wf-rare', limit: 10 });
          expect(first.records).to.deep.equal([]);
          expect(first.next, 'a cursor to go on from').to.be.a('string');
          expect(await findAll(store, { workflowId: 'wf-rare', limit: 10 })).to.deep.equal([wanted]);
        });
      });
    });
  }

  describe(`${TITLE} on one redis-server, beside the contract`, function () {
    this.timeout(30_000);
    let server: RedisServer;
    const closers: Array<() => unknown> = [];

    before(async () => { server = await RedisServer.start() as RedisServer; });
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
    });
    after(async () => { await server?.stop(); });

    function clientOf() {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      closers.push(() => { if (client.isOpen) client.destroy(); });
      return client;
    }

    it('starts while Redis is down, refuses with HISTORY_UNAVAILABLE meanwhile, and keeps calls once Redis is back', async () => {
      await server.kill();
      let down = true;
      closers.push(() => (down ? server.restart() : undefined));
      const store = new RedisHistoryStore({ client: clientOf(), prefix: `down-${process.pid}:`, commandTimeoutMs: 500 });
      closers.push(() => store.close());
      expect(await codeOf(store.append([historyRecordOf(1)]))).to.equal('HISTORY_UNAVAILABLE');
      expect(await codeOf(store.find({ limit: 10 }))).to.equal('HISTORY_UNAVAILABLE');
      await server.restart();
      down = false;
      await until(async () => { await store.append([historyRecordOf(1)]); return true; }, 10_000, 'an append once Redis is back');
      expect(await store.get(historyRecordOf(1).id)).to.deep.equal(historyRecordOf(1));
    });

    it('rejects with HISTORY_UNAVAILABLE, never hangs, when Redis stops answering', async () => {
      const client = clientOf();
      await client.connect();
      const store = new RedisHistoryStore({ client, prefix: `paused-${process.pid}:`, commandTimeoutMs: 200 });
      closers.push(() => store.close());
      await store.append([historyRecordOf(1)]);
      server.pause();
      closers.push(() => server.resume());
      const works = [store.append([historyRecordOf(2)]), store.get(historyRecordOf(1).id), store.claimReplay(historyRecordOf(1).id, false)];
      expect(await Promise.all(works.map((work) => settledWithin(work, 10_000)))).to.deep.equal(['rejected', 'rejected', 'rejected']);
      expect(await Promise.all(works.map(codeOf))).to.deep.equal(['HISTORY_UNAVAILABLE', 'HISTORY_UNAVAILABLE', 'HISTORY_UNAVAILABLE']);
    });

    it('closes its own connection, not the client it was given, and refuses commands once closed', async () => {
      const client = clientOf();
      await client.connect();
      const store = new RedisHistoryStore({ client, prefix: `closed-${process.pid}:` });
      await store.append([historyRecordOf(1)]);
      await store.close();
      expect(await codeOf(store.get(historyRecordOf(1).id))).to.equal('HISTORY_UNAVAILABLE');
      expect(client.isOpen).to.equal(true);
      expect(await client.sendCommand(['EXISTS', `closed-${process.pid}:history:${historyRecordOf(1).id}`])).to.equal(1);
    });

    it('refuses options it cannot use, with a TypeError naming the rule', async () => {
      const client = clientOf();
      for (const [options, message] of [
        [undefined, 'workflow-webhooks/redis: RedisHistoryStore option object is required: new RedisHistoryStore({ client })'],
        [{}, 'RedisHistoryStore option client must be a node-redis client'],
        [{ client: { sendCommand: () => Promise.resolve() } }, 'RedisHistoryStore option client must be a node-redis client'],
        [{ client, prefix: 7 }, 'RedisHistoryStore option prefix must be a string'],
        [{ client, commandTimeoutMs: 0 }, 'RedisHistoryStore option commandTimeoutMs must be a positive number'],
        [{ client, maxEntries: 0 }, 'RedisHistoryStore maxEntries must be a whole number, 1 or more'],
        [{ client, maxAgeMs: 999 }, 'RedisHistoryStore maxAgeMs must be a whole number of milliseconds, 1000 or more'],
      ] as const) {
        expect(() => new RedisHistoryStore(options as never), message).to.throw(TypeError, message);
      }
      expect(new RedisHistoryStore({ client }).retention).to.deep.equal({ maxAgeMs: 14 * 24 * 3_600_000, maxEntries: 10_000 });
    });
  });
}
