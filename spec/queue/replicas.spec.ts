/**
 * Queue mode with replica acknowledgement (`replicas: 1`) on a real primary and replica: a call is answered 2xx only
 * once the replica holds its job (read there), and 503 when the replica does not acknowledge in time, its job then
 * never running nor standing for a later call with the same idempotency key. On a Redis without replicas, the queue
 * warns at start, and a call is refused saying so, not that a wait ran out.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createClient } from 'redis';
import { MemoryWebhookRegistry, type WebhookEvent } from 'workflow-webhooks';
import type { QueuedWebhookRun } from 'workflow-webhooks/queue';
import { BASE, eventually, queueSetup } from '../support/queue/setup.js';
import { RedisReplicaPair } from '../support/redis-replica.js';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll } from '../support/close-all.js';

if (findService(REDIS) === undefined) {
  markNotRun('queue mode: replica acknowledgement', REDIS);
} else {
  describe('queue mode: replica acknowledgement (replicas: 1)', function () {
    this.timeout(30_000);
    let pair: RedisReplicaPair;
    let replica: ReturnType<typeof createClient>;
    before(async () => {
      pair = await RedisReplicaPair.start() as RedisReplicaPair;
      replica = createClient({ url: pair.replica.url });
      replica.on('error', () => undefined);
      await replica.connect();
    });
    after(() => closeAll(() => replica?.destroy(), () => pair?.stop()));
    // A replica stopped by a test goes on before the next one.
    afterEach(() => { pair.resumeReplica(); });
    const setup = queueSetup(() => pair.primary);

    async function serve(replicaTimeoutMs: number) {
      const runs: QueuedWebhookRun[] = [];
      const enqueued: string[] = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST' } }], settings: { idempotencyHeader: true } });
      const queue = setup.queue({ replicas: 1, replicaTimeoutMs, enqueueTimeoutMs: 2000 });
      setup.worker(async (run) => {
        runs.push(run);
        return { items: [] };
      });
      const app = setup.app(registry, queue, { onEvent: (event: WebhookEvent) => { if (event.type === 'enqueued') enqueued.push(event.jobId); } });
      await queue.ready();
      return { app, runs, enqueued, queue };
    }

    /**
     * Connections of the primary's that are blocked in WAIT now (CLIENT LIST's `cmd=wait`). Not INFO's blocked_clients:
     * the worker's own blocking read (BZPOPMIN) is one of those all along.
     */
    async function waitingOnPrimary(): Promise<number> {
      const list = await setup.redis.sendCommand(['CLIENT', 'LIST']) as string;
      return list.split('\n').filter((line) => / cmd=wait( |$)/.test(line)).length;
    }

    /** How many WAIT commands the primary has run so far (INFO commandstats). */
    async function waitsRun(): Promise<number> {
      const stats = await setup.redis.sendCommand(['INFO', 'commandstats']) as string;
      return Number(/^cmdstat_wait:calls=(\d+)/m.exec(stats)?.[1] ?? 0);
    }

    it('answers an onReceived call 2xx once the replica holds its job: WAIT ran on the primary, and the job is read on the replica right after the answer', async () => {
      const { app, runs, enqueued } = await serve(5000);
      const waitsBefore = await waitsRun();
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'fine').send({ n: 1 }).expect(200);
      // On loopback the replica catches up at once either way: what shows the answer waited for it is the WAIT.
      expect(await waitsRun(), 'WAIT commands run for the call').to.be.above(waitsBefore);
      const [jobId] = enqueued;
      const data = await replica.hGet(`bull:${setup.name}:${jobId as string}`, 'data');
      expect(JSON.parse(data as string)).to.include({ workflowId: 'wf' });
      await eventually(() => runs.length === 1);
      expect(runs[0]?.items[0]?.json.body).to.deep.equal({ n: 1 });
    });

    it('holds the answer while the replica is stopped, and answers 2xx once it acknowledges the job', async () => {
      const { app, runs, enqueued } = await serve(10_000);
      pair.stopReplica();
      let answered = false;
      const answer = request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'held').send({ n: 2 }).then((res) => {
        answered = true;
        return res;
      });
      // The call's confirmation is under way: a WAIT blocks on the primary, and its caller has no answer yet.
      await eventually(async () => await waitingOnPrimary() >= 1);
      expect(answered, 'answered while the replica had acknowledged nothing').to.equal(false);
      expect(runs, 'ran before it was confirmed').to.deep.equal([]);
      pair.resumeReplica();
      expect((await answer).status).to.equal(200);
      expect(await replica.exists(`bull:${setup.name}:${enqueued[0] as string}`)).to.equal(1);
      await eventually(() => runs.length === 1);
    });

    it('answers 503 QUEUE_UNAVAILABLE with Retry-After when the replica does not acknowledge in time; that job never runs, and a retry with the same key runs once', async () => {
      const { app, runs, queue } = await serve(300);
      pair.stopReplica();
      const refused = await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k').send({ n: 'refused' });
      expect([refused.status, refused.body.code, refused.headers['retry-after']]).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '5']);
      expect(refused.body.message).to.match(/0 of the 1 replica\(s\).*within 300 ms\. It will not run\./);
      // The stored job is taken back and marked refused: there is nothing left for a worker to take.
      await eventually(async () => Object.values(await queue.bullQueue.getJobCounts()).every((count) => count === 0));
      expect(await setup.redis.keys(`bull:${setup.name}:wh:refused:*`)).to.have.length(1);

      pair.resumeReplica();
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k').send({ n: 'refused' }).expect(200);
      await eventually(() => runs.length === 1);
      // The one job a worker ran is the retry's, not the refused call's (its store id, its refusal mark).
      expect(runs.map((run) => run.items[0]?.json.body)).to.deep.equal([{ n: 'refused' }]);
      expect(Object.values(await queue.bullQueue.getJobCounts()).reduce((sum, count) => sum + count, 0)).to.equal(1);
    });

    it('answers a repeat (same idempotency key) only once a round confirms its job too; refused, the repeat leaves the first call\'s job alone', async () => {
      const { app, runs, queue, enqueued } = await serve(300);
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'again').send({ n: 3 }).expect(200);
      await eventually(() => runs.length === 1);
      pair.stopReplica();
      const repeat = await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'again').send({ n: 3 });
      expect([repeat.status, repeat.body.code]).to.deep.equal([503, 'QUEUE_UNAVAILABLE']);
      pair.resumeReplica();
      await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'again').send({ n: 3 }).expect(200);
      // The first job completed, once; the repeats were answered from it.
      expect((await queue.status(enqueued[0] as string))?.state).to.equal('completed');
      expect(enqueued).to.have.length(2);
      expect(new Set(enqueued).size).to.equal(1);
      expect(runs).to.have.length(1);
    });
  });

  describe('queue mode: replicas: 1 on a Redis without replicas', function () {
    this.timeout(30_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });
    const setup = queueSetup(() => server);

    it('warns through the host\'s logger at start, and refuses a call 503 saying the primary has no replica (not that a wait ran out)', async () => {
      const warnings: string[] = [];
      const logger = { warn: (_fields: object, message?: string) => { warnings.push(message ?? ''); }, error: (): void => undefined };
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST' } }] });
      const queue = setup.queue({ replicas: 1, replicaTimeoutMs: 300, logger });
      await queue.ready();
      expect(warnings).to.deep.equal(['createWebhookQueue: option replicas asks 1 replica(s) to confirm each write, but the Redis primary has 0 connected: ' +
        'calls are refused 503 until enough connect. To go on through a failover (the promoted replica leaves one fewer), run at least replicas + 1 replicas.']);
      const refused = await request(setup.app(registry, queue)).post(`${BASE}/webhook/in`).send({ n: 1 });
      expect([refused.status, refused.body.code, refused.headers['retry-after']]).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '5']);
      expect(refused.body.message).to.equal('The run could not be stored safely: Redis stored it, but the Redis primary has 0 replica(s) connected, ' +
        'fewer than the 1 asked to confirm each write (option replicas). It will not run.');
    });

    it('says nothing at start when no replica is asked for', async () => {
      const warnings: string[] = [];
      const queue = setup.queue({ logger: { warn: (_fields: object, message?: string) => { warnings.push(message ?? ''); }, error: () => undefined } });
      await queue.ready();
      expect(warnings).to.deep.equal([]);
    });
  });
}
