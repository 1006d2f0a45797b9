import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookNodeParameters, type WorkflowSettings } from 'workflow-webhooks';
import type { QueueCallStages, QueuedWebhookRun, WebhookQueueOptions } from 'workflow-webhooks/queue';
import { PGBOUNCER, PgBouncer, type PoolMode } from '../../support/pgbouncer.js';
import { POSTGRES, PostgresServer } from '../../support/postgres-server.js';
import { BASE, eventually, queueParts, type QueueParts } from '../../support/queue/setup.js';
import { queueDrained } from '../../support/queue-drained.js';
import { findService, markNotRun } from '../../support/services.js';

/** As the other queue specs: a pool's first connections on a loaded machine count against the enqueue deadline. */
const SPEC_QUEUE = { enqueueTimeoutMs: 10_000 };

async function registryWith(parameters: Partial<WebhookNodeParameters>, settings?: WorkflowSettings): Promise<MemoryWebhookRegistry> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'in', httpMethod: 'POST', ...parameters } }], settings });
  return registry;
}

/** Queue mode's calls over HTTP, as on a direct connection: the worker's answer, an answer at once, a repeated call. */
function servesCalls(setup: QueueParts): void {
  it('answers a lastNode call with the worker\'s result, heard by the reply channel\'s LISTEN (not by a look at the job)', async () => {
    // The stages are told only for an answer that came on the reply channel.
    const heard: QueueCallStages[] = [];
    const queue = setup.queue({ stageTimes: (stages) => heard.push(stages) });
    setup.worker(async (run) => ({ items: [{ json: { doubled: Number((run.items[0]?.json.body as { n: number }).n) * 2 } }] }));
    const res = await request(setup.app(await registryWith({ responseMode: 'lastNode' }), queue)).post(`${BASE}/webhook/in`).send({ n: 21 }).expect(200);
    expect([res.body, heard.length]).to.deep.equal([{ doubled: 42 }, 1]);
  });

  it('answers an onReceived call at once and runs it on the worker', async () => {
    const runs: QueuedWebhookRun[] = [];
    const queue = setup.queue();
    setup.worker(async (run) => { runs.push(run); return { items: [] }; });
    const res = await request(setup.app(await registryWith({ responseMode: 'onReceived' }), queue)).post(`${BASE}/webhook/in`).send({ n: 1 }).expect(200);
    expect(res.body).to.deep.equal({ message: 'Workflow was started' });
    await eventually(() => runs.length === 1);
    expect(runs[0]?.items[0]?.json.body).to.deep.equal({ n: 1 });
  });

  it('runs a call repeated under one Idempotency-Key once, answering the repeat from the same run', async () => {
    const runs: QueuedWebhookRun[] = [];
    const queue = setup.queue();
    setup.worker(async (run) => { runs.push(run); return { items: [{ json: { run: runs.length } }] }; });
    const app = setup.app(await registryWith({ responseMode: 'lastNode' }, { idempotencyHeader: true }), queue);
    const first = await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k-1').send({}).expect(200);
    const again = await request(app).post(`${BASE}/webhook/in`).set('idempotency-key', 'k-1').send({}).expect(200);
    await queueDrained(queue);
    expect([first.body, again.body, runs.length]).to.deep.equal([{ run: 1 }, { run: 1 }, 1]);
  });
}

/** A PostgreSQL server and a PgBouncer in front of it, for the describe. */
function startBoth(mode: PoolMode): { server: () => PostgresServer; bouncer: () => PgBouncer } {
  let server: PostgresServer | undefined;
  let bouncer: PgBouncer | undefined;
  before(async function () {
    // initdb and the first start take seconds on a loaded machine.
    this.timeout(120_000);
    server = await PostgresServer.start();
    bouncer = await PgBouncer.start(server as PostgresServer, mode);
  });
  after(async () => {
    await bouncer?.stop();
    await server?.stop();
  });
  return { server: () => server as PostgresServer, bouncer: () => bouncer as PgBouncer };
}

if (findService(POSTGRES) === undefined) {
  markNotRun('queue mode on PostgreSQL through PgBouncer', POSTGRES);
} else if (findService(PGBOUNCER) === undefined) {
  markNotRun('queue mode on PostgreSQL through PgBouncer', PGBOUNCER);
} else {
  describe('queue mode on PostgreSQL through PgBouncer in session mode', function () {
    this.timeout(30_000);
    const { bouncer } = startBoth('session');
    servesCalls(queueParts(() => bouncer().url, SPEC_QUEUE));
  });

  describe('queue mode on PostgreSQL through PgBouncer in transaction mode', function () {
    this.timeout(30_000);
    const { server, bouncer } = startBoth('transaction');

    describe('without directUrl', () => {
      const setup = queueParts(() => bouncer().url, SPEC_QUEUE);

      it('refuses to start the queue and the worker with a TypeError that names directUrl and session mode', async () => {
        const refusals = await Promise.all([setup.queue().ready(), setup.worker(async () => ({ items: [] })).ready()]
          .map((starting) => starting.then(() => undefined, (caught: unknown) => caught as Error)));
        for (const [who, error] of [['createWebhookQueue', refusals[0]], ['createWebhookWorker', refusals[1]]] as const) {
          expect(error, who).to.be.instanceOf(TypeError);
          expect(error?.message, who).to.include(`${who}: the PostgreSQL connection keeps no session`).and.include('give option directUrl').and.include('a pooler in session mode');
        }
      });
    });

    describe('with directUrl', () => {
      const withDirect: Partial<WebhookQueueOptions> = { ...SPEC_QUEUE };
      before(() => { withDirect.directUrl = server().url; });
      const setup = queueParts(() => bouncer().url, withDirect);
      servesCalls({
        get name() { return setup.name; },
        queue: setup.queue,
        worker: (executor, options) => setup.worker(executor, { directUrl: server().url, ...options }),
        app: setup.app,
      });
    });
  });
}
