import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookNodeParameters } from 'workflow-webhooks';
import type { WebhookWorkerEvent } from 'workflow-webhooks/queue';
import { BASE, eventually } from '../support/queue/setup.js';
import { queueStores, whileStoreStalled } from '../support/queue/stores.js';
import { freePort } from '../support/redis-server.js';
import { queueDrained } from '../support/queue-drained.js';

/** Runs as jobs: retried, kept when out of attempts, run again on demand, readable, and refused when the store is away. */
for (const store of queueStores('queue mode: jobs')) {
  describe(`queue mode: jobs on ${store.name}`, function () {
    this.timeout(20_000);
    const setup = store.setup();
    const { onRedis, onPostgres } = setup;
    // What depends on no topology of Redis: once on Redis (one redis-server) and once on PostgreSQL.
    const once = store.name === 'one redis-server' || onPostgres !== undefined;

    async function registryWith(parameters: Partial<WebhookNodeParameters> = {}): Promise<MemoryWebhookRegistry> {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'jobs', nodes: [{ name: 'Webhook', parameters: { path: 'job', httpMethod: 'POST', ...parameters } }] });
      return registry;
    }

    it('retries a run that fails, with backoff, until an attempt succeeds, and tells each step through the worker\'s events', async () => {
      const attempts: number[] = [];
      const events: string[] = [];
      const queue = setup.queue({ attempts: 3, backoffMs: 10 });
      setup.worker(async (run) => {
        attempts.push(run.attempt);
        if (run.attempt < 3) throw new Error(`flaky ${run.attempt}`);
        return { items: [{ json: { ok: true } }] };
      }, { onEvent: (event: WebhookWorkerEvent) => { if ('attempt' in event) events.push(`${event.type} ${event.attempt}${event.type === 'failed' ? ` final=${event.final}` : ''}`); } });
      const res = await request(setup.app(await registryWith({ responseMode: 'lastNode' }), queue)).post(`${BASE}/webhook/job`).send({}).expect(200);
      expect(res.body).to.deep.equal({ ok: true });
      expect(attempts).to.deep.equal([1, 2, 3]);
      expect(events).to.deep.equal(['started 1', 'failed 1 final=false', 'retried 2', 'started 2', 'failed 2 final=false', 'retried 3', 'started 3', 'completed 3']);
    });

    it('keeps a run out of attempts as failed with its error, answers its waiting caller 500, and runs it again on retry()', async () => {
      let healthy = false;
      const queue = setup.queue({ attempts: 2, backoffMs: 10 });
      setup.worker(async () => {
        if (!healthy) throw new Error('database down');
        return { items: [{ json: { ok: true } }] };
      });
      const app = setup.app(await registryWith({ responseMode: 'lastNode' }), queue);
      const res = await request(app).post(`${BASE}/webhook/job`).send({}).expect(500);
      expect(res.body.code).to.equal('WORKFLOW_FAILED');
      await eventually(async () => (await queue.failed()).length === 1);
      const [failed] = await queue.failed();
      expect(failed).to.include({ failedReason: 'database down', attemptsMade: 2 });
      healthy = true;
      expect(await queue.retry(failed?.jobId as string)).to.equal(true);
      await eventually(async () => (await queue.status(failed?.jobId as string))?.state === 'completed');
      expect(await queue.retry('no-such-job')).to.equal(false);
    });

    it('reports a job\'s state, progress and result through status()', async () => {
      const queue = setup.queue();
      let jobId = '';
      setup.worker(async (run) => {
        jobId = run.jobId;
        await run.progress(50);
        return { items: [{ json: { total: 3 } }] };
      });
      await request(setup.app(await registryWith(), queue)).post(`${BASE}/webhook/job`).send({}).expect(200);
      await eventually(async () => jobId !== '' && (await queue.status(jobId))?.state === 'completed');
      const status = await queue.status(jobId);
      expect(status).to.deep.include({ state: 'completed', progress: 50, attemptsMade: 1 });
      expect(status?.result?.items).to.deep.equal([{ json: { total: 3 } }]);
      expect(status?.data).to.include({ workflowId: 'jobs', nodeName: 'Webhook', method: 'POST', mode: 'production' });
      expect(await queue.status('no-such-job')).to.equal(undefined);
    });

    it('never reports a job completed without its result while it completes under a status poll', async () => {
      const queue = setup.queue();
      const ids: string[] = [];
      setup.worker(async (run) => {
        ids.push(run.jobId);
        await new Promise((resolve) => setTimeout(resolve, 5 + ids.length % 7));
        return { items: [{ json: { job: run.jobId } }] };
      }, { concurrency: 5 });
      const app = setup.app(await registryWith(), queue);
      await Promise.all(Array.from({ length: 10 }, () => request(app).post(`${BASE}/webhook/job`).send({}).expect(200)));
      await eventually(() => ids.length === 10);
      const seen = await Promise.all(ids.map(async (jobId) => {
        for (;;) {
          const status = await queue.status(jobId);
          if (status?.state === 'completed') return status.result?.items;
        }
      }));
      expect(seen).to.deep.equal(ids.map((jobId) => [{ json: { job: jobId } }]));
    });

    it('gives a test listen its one call and the output the worker produced', async () => {
      const registry = new MemoryWebhookRegistry();
      const queue = setup.queue();
      setup.worker(async (run) => ({ items: [{ json: { mode: run.mode, ran: 'on a worker' } }] }));
      const app = setup.app(registry, queue);
      const listen = await registry.listenForTest({ workflowId: 'jobs', nodes: [{ name: 'Webhook', parameters: { path: 'job', httpMethod: 'POST' } }] });
      await request(app).post(`${BASE}/webhook-test/job`).send({ x: 1 }).expect(200);
      const result = await listen.result;
      expect(result.status).to.equal('received');
      expect(result.status === 'received' && result.output?.items).to.deep.equal([{ json: { mode: 'test', ran: 'on a worker' } }]);
    });

    it('answers a responseNode caller from respond() while its run still goes on: the answer travels as a message, not by a look at the ended job', async () => {
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => { release = resolve; });
      let ended = false;
      const queue = setup.queue();
      setup.worker(async (run) => {
        run.respond({ status: 202, body: { early: true } });
        await held;
        ended = true;
        return { items: [] };
      });
      const app = setup.app(await registryWith({ responseMode: 'responseNode' }), queue);
      try {
        const res = await request(app).post(`${BASE}/webhook/job`).timeout(8000).send({});
        expect([res.status, res.body, ended]).to.deep.equal([202, { early: true }, false]);
      } finally {
        release();
      }
    });

    if (once) {
      it('ends an attempt whose run ignores run.signal past maxRunMs, freeing the worker for the next job, and does not run it again', async () => {
        const started: string[] = [];
        const events: string[] = [];
        const queue = setup.queue({ attempts: 3, backoffMs: 10 });
        setup.worker(async (run) => {
          started.push((run.items[0]?.json.body as { n: string }).n);
          if (started.length === 1) return new Promise<never>(() => undefined); // ignores its signal, never settles
          return { items: [{ json: { ok: true } }] };
        }, { concurrency: 1, maxRunMs: 200, onEvent: (event: WebhookWorkerEvent) => { if (event.type === 'failed') events.push(`failed final=${event.final} ${event.error.message}`); } });
        const app = setup.app(await registryWith({ responseMode: 'lastNode' }), queue);
        const [stuck, next] = await Promise.all([
          request(app).post(`${BASE}/webhook/job`).send({ n: 'stuck' }),
          new Promise((resolve) => setTimeout(resolve, 50)).then(() => request(app).post(`${BASE}/webhook/job`).send({ n: 'next' })),
        ]);
        expect(next.status).to.equal(200);
        expect(stuck.status).to.equal(500);
        expect(started).to.deep.equal(['stuck', 'next']);
        expect(events).to.deep.equal(['failed final=true The run did not finish within maxRunMs (200 ms) and was told to stop.']);
        const [failed] = await queue.failed();
        expect(failed).to.include({ attemptsMade: 1 });
      });

      for (const [kind, make] of [['a BigInt', () => ({ total: 10n })], ['an object that refers to itself', () => { const loop: Record<string, unknown> = {}; loop.self = loop; return loop; }]] as const) {
        it(`fails a run whose result holds ${kind} once, with the reason, and answers its caller 500`, async () => {
          let runs = 0;
          const events: string[] = [];
          const queue = setup.queue({ attempts: 3, backoffMs: 10 });
          setup.worker(async () => {
            runs += 1;
            return { items: [{ json: make() }] };
          }, { onEvent: (event: WebhookWorkerEvent) => { if (event.type === 'failed') events.push(`failed final=${event.final}`); } });
          const res = await request(setup.app(await registryWith({ responseMode: 'lastNode' }), queue)).post(`${BASE}/webhook/job`).send({}).expect(500);
          expect(res.body.code).to.equal('WORKFLOW_INVALID_RESULT');
          expect(res.body.message).to.match(/cannot be stored as JSON/);
          expect(events).to.deep.equal(['failed final=true']);
          // The caller can be answered before the job is marked failed: read it once it is listed.
          await eventually(async () => (await queue.failed()).length === 1);
          const [failed] = await queue.failed();
          expect(failed?.failedReason).to.match(/cannot be stored as JSON/);
          expect(runs).to.equal(1);
        });
      }

      it('answers a call whose item cannot be stored as a job 500 INTERNAL_ERROR with the reason, not 503 as if the store were away', async () => {
        const registry = await registryWith({ responseMode: 'onReceived' });
        let runs = 0;
        setup.worker(async () => { runs += 1; return { items: [] }; });
        // A host that lifted the nesting limit: JSON.stringify of the job overflows its stack.
        const app = setup.app(registry, setup.queue(), { limits: { bodyDepth: 1_000_000 } });
        const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
        const answer = await request(app).post(`${BASE}/webhook/job`).set('content-type', 'application/json').send(deep);
        expect([answer.status, answer.body.code]).to.deep.equal([500, 'INTERNAL_ERROR']);
        await request(app).post(`${BASE}/webhook/job`).send({}).expect(200);
        await eventually(() => runs === 1);
      });

      it('answers 503 QUEUE_UNAVAILABLE with Retry-After when the store cannot be reached, saying so, never 200', async () => {
        const nobody = onRedis !== undefined ? `redis://127.0.0.1:${await freePort()}` : `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
        const queue = setup.queue({ connection: nobody, enqueueTimeoutMs: 300 });
        const res = await request(setup.app(await registryWith(), queue)).post(`${BASE}/webhook/job`).send({}).expect(503);
        expect(res.body.code).to.equal('QUEUE_UNAVAILABLE');
        expect(res.headers['retry-after']).to.equal('5');
        // Both keep trying to connect until the call's deadline.
        expect(res.body.message).to.equal(`The run could not be stored: ${onRedis !== undefined ? 'Redis' : 'PostgreSQL'} could not be reached within 300 ms. It will not run.`);
      });
    }

    const stalled = <T>(during: () => Promise<T>): Promise<T> => whileStoreStalled(setup, during);

    if (once) {
      it('answers 503 QUEUE_UNAVAILABLE saying the store did not acknowledge the job in time when it stalls past the enqueue timeout', async () => {
        const queue = setup.queue({ enqueueTimeoutMs: 300 });
        const app = setup.app(await registryWith(), queue);
        await queue.ready();
        const res = await stalled(() => request(app).post(`${BASE}/webhook/job`).send({}));
        expect([res.status, res.body.code, res.body.message]).to.deep.equal([503, 'QUEUE_UNAVAILABLE',
          `The run could not be stored: ${onRedis !== undefined ? 'Redis' : 'PostgreSQL'} did not acknowledge it within 300 ms. It will not run.`]);
      });

      it('survives a lastNode caller that hangs up while its job is still being stored', async () => {
        const unhandled: unknown[] = [];
        const collect = (reason: unknown): void => { unhandled.push(reason); };
        process.on('unhandledRejection', collect);
        try {
          const queue = setup.queue({ enqueueTimeoutMs: 1500 });
          setup.worker(async () => ({ items: [{ json: { ok: true } }] }));
          const app = setup.app(await registryWith({ responseMode: 'lastNode' }), queue);
          await queue.ready();
          // The caller gives up while the store holds the job: the run's signal is aborted before the job is stored.
          const gaveUp = await stalled(async () => {
            const hungUp = await request(app).post(`${BASE}/webhook/job`).timeout(300).send({}).then(() => false, () => true);
            await new Promise((resolve) => setTimeout(resolve, 1700));
            return hungUp;
          });
          expect(gaveUp).to.equal(true);
          // The late job is stored and run once the store is back, and the enqueue settles with it: wait for that, then
          // for the turn on which Node reports a rejection nobody handled.
          await queueDrained(queue);
          await new Promise((resolve) => setImmediate(resolve));
          expect(unhandled).to.deep.equal([]);
          expect((await request(app).post(`${BASE}/webhook/job`).send({}).expect(200)).body).to.deep.equal({ ok: true });
        } finally {
          process.removeListener('unhandledRejection', collect);
        }
      });
    }

    if (onPostgres !== undefined) {
      it('answers 503 QUEUE_UNAVAILABLE with Retry-After while the database is down, never 200, and stores calls again once it is back', async function () {
        this.timeout(60_000);
        let runs = 0;
        const queue = setup.queue({ enqueueTimeoutMs: 1000 });
        const worker = setup.worker(async () => { runs += 1; return { items: [] }; });
        const app = setup.app(await registryWith(), queue);
        await Promise.all([queue.ready(), worker.ready()]);
        await onPostgres.server.stopImmediately();
        try {
          const res = await request(app).post(`${BASE}/webhook/job`).send({});
          expect([res.status, res.body.code, res.headers['retry-after']]).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '5']);
          expect(res.body.message).to.match(/^The run could not be stored: .*PostgreSQL.* It will not run\.$/);
        } finally {
          await onPostgres.server.startAgain();
        }
        // Retried until the pools have reconnected: each refusal is a call that must never run, the first 200 one that must.
        await eventually(async () => (await request(app).post(`${BASE}/webhook/job`).send({})).status === 200, 40_000);
        await eventually(() => runs === 1, 15_000);
        await queueDrained(queue);
        expect(runs, 'only the call answered 200 runs').to.equal(1);
      });
    }

    if (once) {
      it('lets a run go on when its lastNode caller hangs up, without reporting a workflow failure', async () => {
        const failures: string[] = [];
        let finished = false;
        const queue = setup.queue();
        setup.worker(async () => {
          await new Promise((resolve) => setTimeout(resolve, 400));
          finished = true;
          return { items: [] };
        });
        const logged: string[] = [];
        const app = setup.app(await registryWith({ responseMode: 'lastNode' }), queue, {
          onWorkflowError: (error) => failures.push(error.code),
          logger: { error: (_fields, message) => logged.push(String(message)), warn: () => undefined },
        });
        // Connected first: the caller hangs up while its run goes on, not while its job is being stored (the case above).
        await queue.ready();
        const gaveUp = await request(app).post(`${BASE}/webhook/job`).timeout(100).send({}).then(() => false, () => true);
        expect(gaveUp).to.equal(true);
        await eventually(() => finished);
        // The job's end: from then on nothing about this run is left to report.
        await queueDrained(queue);
        expect(failures).to.deep.equal([]);
        expect(logged, 'nothing is logged as an error: nobody failed').to.deep.equal([]);
      });

      it('answers 503 SHUTTING_DOWN once the middleware is closed, and refuses hand-offs once the queue is closed', async () => {
        const queue = setup.queue();
        const registry = await registryWith();
        const { createWebhookMiddleware } = await import('workflow-webhooks');
        const middleware = createWebhookMiddleware(registry, queue.executor, { logger: { error: () => undefined, warn: () => undefined } });
        await middleware.close({ timeoutMs: 100 });
        const express = (await import('express')).default;
        const app = express().use(BASE, middleware);
        expect((await request(app).post(`${BASE}/webhook/job`).send({}).expect(503)).body.code).to.equal('SHUTTING_DOWN');
        await queue.close();
        const open = setup.app(registry, queue);
        expect((await request(open).post(`${BASE}/webhook/job`).send({}).expect(503)).body.code).to.equal('SHUTTING_DOWN');
      });
    }
  });
}
