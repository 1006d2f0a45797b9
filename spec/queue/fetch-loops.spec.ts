import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import { loopConcurrencies, MAX_FETCH_LOOPS } from '../../lib/queue/fetch-loops.js';
import { BASE, eventually, queueSetup } from '../support/queue/setup.js';
import { RedisServer, REDIS } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';

/** A worker's concurrency is spread over several BullMQ fetch loops, so jobs arriving together are taken together. */
describe('queue mode: a worker\'s fetch loops', () => {
  it('spreads a worker\'s concurrency over at most eight loops, their shares adding up to it', () => {
    expect(loopConcurrencies(1)).to.deep.equal([1]);
    expect(loopConcurrencies(5)).to.deep.equal([1, 1, 1, 1, 1]);
    expect(loopConcurrencies(8)).to.deep.equal([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(loopConcurrencies(20)).to.deep.equal([3, 3, 3, 3, 2, 2, 2, 2]);
    for (const concurrency of [1, 2, 7, 9, 10, 33, 100]) {
      const shares = loopConcurrencies(concurrency);
      expect(shares.length).to.equal(Math.min(concurrency, MAX_FETCH_LOOPS));
      expect(shares.reduce((sum, share) => sum + share, 0)).to.equal(concurrency);
      expect(Math.min(...shares)).to.be.at.least(1);
    }
  });

  if (findService(REDIS) === undefined) {
    markNotRun('queue mode: a worker\'s fetch loops', REDIS);
    return;
  }
  describe('on one redis-server', function () {
    this.timeout(20_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server.stop(); });
    const setup = queueSetup(() => server);

    it('runs as many jobs at once as the worker\'s concurrency, never one more, and the rest once a run ends', async () => {
      let running = 0;
      let most = 0;
      let started = 0;
      let open!: () => void;
      const gate = new Promise<void>((resolve) => { open = resolve; });
      const queue = setup.queue();
      setup.worker(async (run) => {
        started += 1;
        running += 1;
        most = Math.max(most, running);
        await gate;
        running -= 1;
        return { items: run.items };
      }, { concurrency: 3 });
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'loops', nodes: [{ name: 'Webhook', parameters: { path: 'loops', httpMethod: 'POST' } }] });
      const app = setup.app(registry, queue);
      for (let i = 0; i < 7; i += 1) await request(app).post(`${BASE}/webhook/loops`).send({ i }).expect(200);
      await eventually(() => started === 3);
      // Every slot is taken: the other four wait in the queue, none taken by a loop without room for it.
      expect(await queue.bullQueue.getWaitingCount()).to.equal(4);
      expect(await queue.bullQueue.getActiveCount()).to.equal(3);
      open();
      await eventually(async () => await queue.bullQueue.getCompletedCount() === 7);
      expect(started).to.equal(7);
      expect(most).to.equal(3);
    });
  });
});
