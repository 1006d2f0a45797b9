/**
 * Queue mode on PostgreSQL when the answer to a job's add is lost: the connection ended after the statement was sent,
 * so the job may be stored though the web instance heard only a failure. Such a call is neither answered 503 while
 * its job runs nor lost: the add is made again under the same job id until PostgreSQL answers. The pool given to the
 * web queue is a real one whose statements run on the real server; only their answers are cut, as a restart or a
 * terminated backend cuts them.
 */
import { expect } from 'chai';
import express from 'express';
import pg from 'pg';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookExecutor } from 'workflow-webhooks';
import { createWebhookQueue, createWebhookWorker, type WebhookQueue, type WebhookWorker } from 'workflow-webhooks/queue';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { freshName } from '../../support/queue/postgres-link.js';
import { eventually } from '../../support/queue/setup.js';
import { queueDrained } from '../../support/queue-drained.js';
import { findService, markNotRun } from '../../support/services.js';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };
const ADD = /\badd_job\(/;

/** node-postgres' own failure when a connection ends while a statement is on its way. */
const lostAnswer = (): Error => new Error('Connection terminated unexpectedly');
/** node-postgres' failure when no connection could be made: nothing was sent. */
const notSent = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

/**
 * A pool whose first `times` adds of a job fail as `how` says: `after` runs the statement on the server and then
 * loses its answer, `before` fails without sending it.
 */
function faultyPool(url: string, how: 'after' | 'before', times: number): { pool: pg.Pool; adds: () => number } {
  const pool = new pg.Pool({ connectionString: url, max: 4, options: '-c search_path=bullmq' });
  pool.on('error', () => undefined);
  const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
  let adds = 0;
  Object.assign(pool, {
    async query(text: unknown, values?: unknown[]) {
      if (typeof text !== 'string' || !ADD.test(text)) return query(text as string, values);
      adds += 1;
      if (adds > times) return query(text, values);
      if (how === 'before') throw notSent();
      await query(text, values);
      throw lostAnswer();
    },
  });
  return { pool, adds: () => adds };
}

if (findService(POSTGRES) === undefined) {
  markNotRun('queue mode on PostgreSQL when the answer to a job\'s add is lost', POSTGRES);
} else {
  describe('queue mode on PostgreSQL when the answer to a job\'s add is lost', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    let admin: pg.Pool;
    const schema = freshName('lost_answers');
    const closers: Array<() => Promise<unknown>> = [];
    let runs: string[];

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      admin = new pg.Pool({ connectionString: server.url, max: 2 });
      admin.on('error', () => undefined);
    });
    after(async () => { await admin?.end(); });
    beforeEach(() => { runs = []; });
    afterEach(async () => { for (const close of closers.splice(0).reverse()) await close().catch(() => undefined); });

    function web(pool: pg.Pool, name: string, enqueueTimeoutMs = 5000): { queue: WebhookQueue; app: express.Express } {
      const queue = createWebhookQueue({ connection: pool, schema, name, enqueueTimeoutMs, logger: SILENT });
      const registry = new MemoryWebhookRegistry();
      void registry.activate({ workflowId: 'orders', nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }] });
      const middleware = createWebhookMiddleware(registry, queue.executor as WebhookExecutor, { logger: SILENT });
      closers.push(async () => { await middleware.close({ timeoutMs: 500 }); await queue.close(); await pool.end(); });
      const app = express();
      app.use('/hooks', middleware);
      return { queue, app };
    }

    function worker(name: string): WebhookWorker {
      const started = createWebhookWorker({
        connection: server.url, schema, name, logger: SILENT,
        executor: async (run) => { runs.push(String((run.items[0]?.json.body as { order?: unknown }).order)); return { items: [] }; },
      });
      closers.push(() => started.close({ timeoutMs: 1000 }));
      return started;
    }

    const jobsOf = async (name: string): Promise<number> =>
      (await admin.query('SELECT count(*)::int AS n FROM bullmq.job WHERE queue = $1', [name])).rows[0].n as number;

    it('answers 200 a call whose job was stored but whose answer was lost, and runs it once', async () => {
      const name = freshName('lost');
      const faulty = faultyPool(server.url, 'after', 1);
      const { queue, app } = web(faulty.pool, name);
      await queue.ready();
      await worker(name).ready();
      await request(app).post('/hooks/webhook/orders').send({ order: 'a-1' }).expect(200);
      await eventually(() => runs.length === 1);
      // No job left to run: a second run of the call could only come from a job still waiting.
      await queueDrained(queue);
      expect(runs).to.deep.equal(['a-1']);
      expect(faulty.adds(), 'the add made again').to.equal(2);
      expect(await jobsOf(name)).to.equal(1);
    });

    it('refuses 503 at once, without waiting for its deadline, a call whose add never reached PostgreSQL, and never runs it', async () => {
      const name = freshName('unsent');
      const faulty = faultyPool(server.url, 'before', 1);
      const { queue, app } = web(faulty.pool, name);
      await queue.ready();
      await worker(name).ready();
      const res = await request(app).post('/hooks/webhook/orders').send({ order: 'b-1' }).expect(503);
      expect(res.body.code).to.equal('QUEUE_UNAVAILABLE');
      // Refused for what PostgreSQL said, not at the deadline, and not sent again.
      expect(res.body.message).to.equal('The run could not be stored: PostgreSQL could not be reached or refused the write. It will not run.');
      expect(faulty.adds()).to.equal(1);
      expect(res.headers['retry-after']).to.match(/^[1-9][0-9]*$/);
      // A later call, taken and run, shows the worker at work: the refused one, had it been stored, ran before it.
      await request(app).post('/hooks/webhook/orders').send({ order: 'b-2' }).expect(200);
      await eventually(() => runs.length > 0);
      await queueDrained(queue);
      expect(runs).to.deep.equal(['b-2']);
      expect(await jobsOf(name)).to.equal(1);
    });

    it('refuses 503 at its deadline a call whose every add loses its answer, and no worker runs the job the database kept', async () => {
      const name = freshName('always-lost');
      const faulty = faultyPool(server.url, 'after', Number.POSITIVE_INFINITY);
      const { queue, app } = web(faulty.pool, name, 1000);
      await queue.ready();
      const res = await request(app).post('/hooks/webhook/orders').send({ order: 'c-1' }).expect(503);
      expect(res.body.code).to.equal('QUEUE_UNAVAILABLE');
      expect(faulty.adds(), 'the add made again until the deadline').to.be.above(2);
      // The database kept the job; a worker that comes now finds its caller refused.
      expect(await jobsOf(name)).to.equal(1);
      worker(name);
      await eventually(async () => (await admin.query(`SELECT count(*)::int AS n FROM bullmq.job WHERE queue = $1 AND state = 'completed'`, [name])).rows[0].n === 1);
      expect(runs).to.deep.equal([]);
    });
  });
}
