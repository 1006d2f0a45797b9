/**
 * The Redis registry with replica acknowledgement (`replicas: 1`): on a primary and replica, a change is made only
 * once the replica holds it (read there), and refused REGISTRY_UNAVAILABLE, saying what became of it, when the
 * replica does not acknowledge in time; behind Sentinel, every activation confirmed before the primary is SIGKILLed
 * is there after the promotion. On a Redis without replicas it warns at ready(), and a change is refused saying so.
 */
import { expect } from 'chai';
import { createClient, createCluster, createSentinel } from 'redis';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import type { WaitEntry } from '../../lib/core/waits.js';
import { RedisReplicaPair } from '../support/redis-replica.js';
import { RedisClusterGroup, RedisSentinelGroup } from '../support/redis-topologies.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll } from '../support/close-all.js';

const QUIET = { onEvent: (): void => undefined };

function workflow(id: string) {
  return { workflowId: id, nodes: [{ name: 'Webhook', parameters: { path: `${id}/in`, httpMethod: 'POST' as const } }] };
}

function waitEntry(waitId: string): WaitEntry {
  return { waitId, status: 'waiting', expiresAt: Date.now() + 60_000, workflowId: 'wf', nodeName: 'Wait', mode: 'production', startedAt: Date.now(), callId: 'c1' };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const by = Date.now() + 15_000;
  while (!await check()) {
    if (Date.now() > by) throw new Error('not true within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; hint?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

describe('Redis registry options: replicas, replicaTimeoutMs', () => {
  const client = createClient();
  it('takes replicas (a whole number, default 0) and replicaTimeoutMs (whole ms, at least 1, default 1000), refusing anything else by rule', () => {
    for (const replicas of [-1, 1.5, '1', Infinity]) {
      expect(() => new RedisWebhookRegistry({ client, replicas: replicas as number }), String(replicas))
        .to.throw(TypeError, /^workflow-webhooks\/redis: option replicas must be a whole number of at least 0; got /);
    }
    for (const replicaTimeoutMs of [0, 2.5, Infinity]) {
      expect(() => new RedisWebhookRegistry({ client, replicas: 1, replicaTimeoutMs }), String(replicaTimeoutMs))
        .to.throw(TypeError, /^workflow-webhooks\/redis: option replicaTimeoutMs must be a whole number of at least 1; got /);
    }
  });
});

if (findService(REDIS) === undefined) {
  markNotRun('Redis registry: replica acknowledgement', REDIS);
} else {
  describe('Redis registry: replica acknowledgement (replicas: 1)', function () {
    this.timeout(30_000);
    let pair: RedisReplicaPair;
    let client: ReturnType<typeof createClient>;
    let replica: ReturnType<typeof createClient>;
    const registries: RedisWebhookRegistry[] = [];
    let prefix = '';
    before(async () => {
      pair = await RedisReplicaPair.start() as RedisReplicaPair;
      client = createClient({ url: pair.primary.url });
      replica = createClient({ url: pair.replica.url });
      for (const made of [client, replica]) {
        made.on('error', () => undefined);
        await made.connect();
      }
    });
    after(() => closeAll(() => client?.destroy(), () => replica?.destroy(), () => pair?.stop()));
    beforeEach(() => { prefix = `replicas-${Math.random().toString(36).slice(2, 8)}:`; });
    afterEach(async () => {
      pair.resumeReplica();
      for (const registry of registries.splice(0)) await registry.close();
    });

    async function registry(replicaTimeoutMs: number): Promise<RedisWebhookRegistry> {
      const made = new RedisWebhookRegistry({ client, prefix, replicas: 1, replicaTimeoutMs, ...QUIET });
      registries.push(made);
      await made.ready();
      return made;
    }

    /** Connections of the primary's blocked in WAIT now (CLIENT LIST's `cmd=wait`). */
    async function waitingOnPrimary(): Promise<number> {
      const list = await client.sendCommand(['CLIENT', 'LIST']) as string;
      return list.split('\n').filter((line) => / cmd=wait( |$)/.test(line)).length;
    }

    it('resolves an activation, a stored wait and a claim only once the replica holds them: held while the replica is stopped, read there right after', async () => {
      const made = await registry(10_000);
      // On loopback a replica catches up at once: held back, it shows the activation waits for its acknowledgement.
      pair.stopReplica();
      let settled = false;
      const activation = made.activate(workflow('a')).finally(() => { settled = true; });
      await until(async () => await waitingOnPrimary() >= 1);
      expect(settled, 'activation resolved while the replica had acknowledged nothing').to.equal(false);
      pair.resumeReplica();
      await activation;
      expect(await replica.hExists(`${prefix}workflows`, 'a')).to.equal(1);
      expect(await made.putWait(waitEntry('w1'))).to.equal(true);
      expect(await replica.hGet(`${prefix}wait:w1`, 'status')).to.equal('waiting');
      expect((await made.claimWait('w1', Date.now())).claimed).to.equal(true);
      expect(await replica.hGet(`${prefix}wait:w1`, 'status')).to.equal('running');
      expect(await made.deactivate('a')).to.equal(true);
      expect(await replica.hExists(`${prefix}workflows`, 'a')).to.equal(0);
    });

    it('refuses an activation the replica does not confirm in time with REGISTRY_UNAVAILABLE, saying it is in effect on the primary; a repeat confirms it', async () => {
      const made = await registry(300);
      pair.stopReplica();
      const error = await rejection(made.activate(workflow('b')));
      expect(error.code).to.equal('REGISTRY_UNAVAILABLE');
      expect(error.message).to.equal('Not confirmed while activating workflow "b": 0 of the 1 replica(s) asked for (option replicas) confirmed it within 300 ms. ' +
        'The workflow is active on the Redis primary and every instance serves it so, but a failover before the replicas catch up may undo that.');
      expect(error.hint).to.match(/Call activate\(\) again once the replicas are back/);
      // As documented: applied on the primary, and served.
      const served = await made.lookup('production', 'POST', 'b/in');
      expect(served.found && served.webhook.workflowId).to.equal('b');
      pair.resumeReplica();
      await made.activate(workflow('b'));
      expect(await replica.hExists(`${prefix}workflows`, 'b')).to.equal(1);
    });

    it('gives back a claim the replica does not confirm, refusing it, so that a retry resumes the wait', async () => {
      const made = await registry(300);
      // A run resumed once already and waiting again: its entry keeps that earlier resume's time.
      await made.putWait({ ...waitEntry('w2'), resumedAt: 1234 });
      pair.stopReplica();
      const error = await rejection(made.claimWait('w2', Date.now()));
      expect([error.code, error.message]).to.deep.equal(['REGISTRY_UNAVAILABLE',
        'Not confirmed while resuming wait "w2": 0 of the 1 replica(s) asked for (option replicas) confirmed it within 300 ms. The claim was given back: the run was not resumed.']);
      expect(await made.getWait('w2')).to.include({ status: 'waiting', resumedAt: 1234 });
      pair.resumeReplica();
      expect((await made.claimWait('w2', Date.now())).claimed).to.equal(true);
    });
  });

  describe('Redis registry: replicas: 1 on a Redis without replicas', function () {
    this.timeout(30_000);
    let server: RedisServer;
    let client: ReturnType<typeof createClient>;
    before(async () => {
      server = await RedisServer.start() as RedisServer;
      client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
    });
    after(() => closeAll(() => client?.destroy(), () => server?.stop()));

    it('warns at ready() through the host\'s logger, and refuses a change saying the primary has no replica (not that a wait ran out)', async () => {
      const warnings: Array<[object, string | undefined]> = [];
      const logger = { warn: (fields: object, message?: string) => { warnings.push([fields, message]); }, error: (): void => undefined };
      const made = new RedisWebhookRegistry({ client, replicas: 1, replicaTimeoutMs: 300, logger });
      try {
        await made.ready();
        expect(warnings).to.have.length(1);
        expect(warnings[0]?.[0]).to.include({ code: 'tooFewReplicas' });
        expect(warnings[0]?.[1]).to.equal('RedisWebhookRegistry: option replicas asks 1 replica(s) to confirm each write, but the Redis primary has 0 connected: ' +
          'registry changes (and resumed waits) are refused 503 until enough connect. To go on through a failover (the promoted replica leaves one fewer), ' +
          'run at least replicas + 1 replicas.');
        const error = await rejection(made.activate(workflow('alone')));
        expect([error.code, error.message]).to.deep.equal(['REGISTRY_UNAVAILABLE', 'Not confirmed while activating workflow "alone": the Redis primary has 0 replica(s) ' +
          'connected, fewer than the 1 asked to confirm each write (option replicas). The workflow is active on the Redis primary and every instance serves it so, ' +
          'but a failover before the replicas catch up may undo that.']);
      } finally {
        await made.close();
      }
    });
  });

  describe('Redis registry: replica acknowledgement on a Redis Cluster', function () {
    this.timeout(60_000);
    let group: RedisClusterGroup;
    before(async () => { group = await RedisClusterGroup.start(findService(REDIS) as string, 3, 1); });
    after(async () => { await group?.stop(); });

    it('confirms an activation on the replica of the master that holds the registry\'s slot: read there right after', async () => {
      const cluster = createCluster({ rootNodes: group.rootNodes });
      cluster.on('error', () => undefined);
      await cluster.connect();
      const made = new RedisWebhookRegistry({ client: cluster, replicas: 1, replicaTimeoutMs: 1000, ...QUIET });
      try {
        await made.ready();
        await made.activate(workflow('on-cluster'));
        // Every replica is asked (READONLY: it answers for its master's slots); the one of the slot's master has it.
        const answers = await Promise.all(group.nodes.map(async (node) => {
          const direct = createClient({ url: `redis://127.0.0.1:${node.port}` });
          direct.on('error', () => undefined);
          await direct.connect();
          try {
            if (!(await direct.sendCommand(['ROLE']) as string[])[0]?.startsWith('slave')) return 'master';
            await direct.sendCommand(['READONLY']);
            return await direct.sendCommand(['HEXISTS', '{workflow-webhooks:}workflows', 'on-cluster']).catch(() => 'moved');
          } finally {
            direct.destroy();
          }
        }));
        expect(answers.filter((answer) => answer !== 'master').sort()).to.deep.equal([1, 'moved', 'moved']);
        // Another shard's replica stopped changes nothing: the WAIT goes to the slot's master only.
        const holder = group.nodes[answers.findIndex((answer) => Number(answer) === 1)] as (typeof group.nodes)[number];
        const other = group.nodes[answers.findIndex((answer) => answer === 'moved')] as (typeof group.nodes)[number];
        other.pause();
        try {
          // Writes on every shard, that stopped replica's among them: its master's replication offset runs ahead.
          await Promise.all(Array.from({ length: 30 }, (_, index) => cluster.set(`elsewhere-${index}`, 'x')));
          await made.activate(workflow('other-shard-late'));
        } finally {
          other.resume();
        }
        // That slot's replica stopped, the WAIT on its master times out: the next activation is refused.
        holder.pause();
        try {
          const error = await rejection(made.activate(workflow('unconfirmed')));
          expect([error.code, error.message]).to.deep.equal(['REGISTRY_UNAVAILABLE', 'Not confirmed while activating workflow "unconfirmed": 0 of the 1 replica(s) ' +
            'asked for (option replicas) confirmed it within 1000 ms. The workflow is active on the Redis primary and every instance serves it so, but a failover ' +
            'before the replicas catch up may undo that.']);
        } finally {
          holder.resume();
        }
      } finally {
        await made.close();
        cluster.destroy();
      }
    });
  });

  describe('Redis registry: replica acknowledgement behind Sentinel, across a failover', function () {
    this.timeout(90_000);
    let group: RedisSentinelGroup;
    before(async () => {
      group = await RedisSentinelGroup.start(findService(REDIS) as string, { replicas: 1 });
      // The group is up once its replica has connected; a full sync (diskless, after a delay of 5 s) makes it online.
      const primary = await group.primaryPort();
      while (!(await group.cli(primary, 'INFO', 'replication')).includes('state=online')) await new Promise((resolve) => setTimeout(resolve, 100));
    });
    after(async () => { await group?.stop(); });

    it('loses no activation it confirmed when the primary is SIGKILLed: those the replica had not acknowledged were refused', async () => {
      const sentinel = createSentinel({ name: group.name, sentinelRootNodes: group.sentinelRootNodes });
      sentinel.on('error', () => undefined);
      await sentinel.connect();
      const made = new RedisWebhookRegistry({ client: sentinel, replicas: 1, replicaTimeoutMs: 3000, ...QUIET });
      const primary = await group.primaryPort();
      const follower = group.servers.find((server) => server.port !== primary) as (typeof group.servers)[number];
      try {
        await made.ready();
        // Confirmed while the replica keeps up; concurrently, so that several share a round of acknowledgement.
        const before = Array.from({ length: 100 }, (_, index) => `before-${index}`);
        await Promise.all(before.map((id) => made.activate(workflow(id))));
        // The replica stops, and a large write fills the socket buffers between them: what follows stays in the
        // primary's memory (its replica output buffer), to be lost with it. These wait for an acknowledgement in vain.
        follower.pause();
        const direct = createClient({ url: `redis://127.0.0.1:${primary}` });
        direct.on('error', () => undefined);
        await direct.connect();
        await direct.set('filler', 'x'.repeat(24 * 1024 * 1024));
        direct.destroy();
        const during = Array.from({ length: 100 }, (_, index) => `during-${index}`);
        const settled = Promise.allSettled(during.map((id) => made.activate(workflow(id))));
        await until(async () => Number(await group.cli(primary, 'HLEN', 'workflow-webhooks:workflows')) === 200);
        await group.killPrimary(() => follower.resume());
        const outcomes = await settled;
        const confirmed = [...before, ...during.filter((_, index) => outcomes[index]?.status === 'fulfilled')];
        const refused = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason as { code?: string });
        const promoted = createClient({ url: `redis://127.0.0.1:${follower.port}` });
        promoted.on('error', () => undefined);
        await promoted.connect();
        try {
          const kept = new Set(await promoted.hKeys('workflow-webhooks:workflows'));
          expect(confirmed.filter((id) => !kept.has(id)), 'confirmed activations lost in the failover').to.deep.equal([]);
          // The writes the replica never saw were lost with the primary: each of them had been refused.
          expect(during.filter((id) => !kept.has(id))).to.have.length(100);
          expect(refused.map((error) => error.code)).to.deep.equal(Array.from({ length: 100 }, () => 'REGISTRY_UNAVAILABLE'));
        } finally {
          promoted.destroy();
        }
      } finally {
        await made.close();
        sentinel.destroy();
      }
    });
  });
}
