/**
 * An application role that may create nothing, set up word for word as docs/postgres.md ("Least privilege") and
 * docs/queue.md ("Least privilege in queue mode") say: the registry, the call log and queue mode (web queue and worker,
 * lastNode answers of 100 kB) run as that role with `migrate: false`; a missing grant is named in the host's log,
 * never a silent slowdown; `migrate: true` as that role is refused with the fix.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import request from 'supertest';
import { migrate, PostgresCallLog, PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { createWebhookQueue, createWebhookWorker } from 'workflow-webhooks/queue';
import { callOf } from '../support/call-log-contract/index.js';
import { POSTGRES, PostgresServer } from '../support/postgres-server.js';
import { lastNodeThroughQueue } from '../support/postgres/queue-app.js';
import { findService, markNotRun } from '../support/services.js';

/** The ```sql blocks of one section of a doc (from its heading to the next heading of any level), in order. */
function sqlBlocks(doc: string, heading: string): string[] {
  const text = readFileSync(new URL(`../../docs/${doc}`, import.meta.url), 'utf8');
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`${doc} has no section "${heading}"`);
  const rest = text.slice(start + heading.length);
  const end = rest.search(/\n#{1,6} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

/** A logger that keeps every line, with its fields, as text. */
function keptLogger(): { lines: string[]; logger: { info(): void; debug(): void; warn(fields: unknown, text?: string): void; error(fields: unknown, text?: string): void } } {
  const lines: string[] = [];
  const keep = (fields: unknown, text?: string): void => {
    const err = (fields as { err?: { message?: unknown } } | undefined)?.err;
    lines.push(`${String(text)} ${typeof err?.message === 'string' ? err.message : ''}`);
  };
  return { lines, logger: { info: () => undefined, debug: () => undefined, warn: keep, error: keep } };
}

const BIG = 100_000;
const SILENT = { error: (): void => undefined, warn: (): void => undefined };
const REPLY_SEQUENCE = 'workflow_webhooks.queue_replies_reply_id_seq';

async function settlesWithin<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms); });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await settlesWithin(work, 20_000);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('it was not refused');
}

if (findService(POSTGRES) === undefined) {
  markNotRun('PostgreSQL as a role of least privilege', POSTGRES);
} else {
  describe('PostgreSQL as an application role that may create nothing (docs/postgres.md, "Least privilege")', function () {
    this.timeout(120_000);
    let server: PostgresServer;
    let owner: pg.Pool;
    let appUrl: string;
    const closers: Array<() => Promise<unknown>> = [];

    before(async function () {
      this.timeout(180_000);
      server = await PostgresServer.start() as PostgresServer;
      const superuser = new pg.Client({ connectionString: server.url });
      await superuser.connect();
      await superuser.query('CREATE DATABASE app');
      await superuser.end();
      const onApp = new pg.Client({ connectionString: server.url.replace(/\/postgres$/, '/app') });
      await onApp.connect();
      const [roles, grants] = sqlBlocks('postgres.md', '## Least privilege');
      await onApp.query(roles as string);
      await onApp.end();
      const ownerUrl = `postgres://webhooks_owner@127.0.0.1:${server.port}/app`;
      appUrl = `postgres://webhooks_app@127.0.0.1:${server.port}/app`;
      // The migration as docs/queue.md runs it: the library's schema and BullMQ's, as the role that may create.
      await migrate({ connectionString: ownerUrl, schema: 'workflow_webhooks', bullmqSchema: 'bullmq' });
      owner = new pg.Pool({ connectionString: ownerUrl, max: 2 });
      owner.on('error', () => undefined);
      await owner.query(grants as string);
      const [bullmqGrants] = sqlBlocks('queue.md', '#### Least privilege in queue mode');
      await owner.query(bullmqGrants as string);
    });
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    });
    after(async () => {
      await owner?.end();
      await server?.stop();
    });

    it('sets up a role that may create no table and no schema', async () => {
      const app = new pg.Client({ connectionString: appUrl });
      await app.connect();
      try {
        for (const ddl of ['CREATE TABLE public.t (x int)', 'CREATE SCHEMA s', 'CREATE TABLE workflow_webhooks.t (x int)', 'CREATE TABLE bullmq.t (x int)']) {
          const refused = await app.query(ddl).then(() => undefined, (error: { code?: string }) => error.code);
          expect(refused, ddl).to.equal('42501');
        }
      } finally {
        await app.end();
      }
    });

    it('runs the registry and the console\'s call log as that role, with migrate: false', async () => {
      const registry = new PostgresWebhookRegistry({ connectionString: appUrl, migrate: false, logger: SILENT });
      closers.push(() => registry.close());
      const other = new PostgresWebhookRegistry({ connectionString: appUrl, migrate: false, logger: SILENT });
      closers.push(() => other.close());
      await Promise.all([registry.ready(), other.ready()]);
      await registry.activate({ workflowId: 'granted', nodes: [{ name: 'Webhook', parameters: { path: 'granted', httpMethod: 'POST' } }] });
      await until(async () => (await other.list()).some((webhook) => webhook.workflowId === 'granted'));
      const calls = new PostgresCallLog({ connectionString: appUrl, migrate: false, onError: () => undefined });
      closers.push(() => calls.close());
      await calls.append(callOf(1));
      expect((await calls.recent()).map((call) => call.callId)).to.deep.equal(['call-1']);
    });

    /** A web queue, a worker and the registry as the application's role, answering `lastNode` with 100 kB. */
    async function queueMode(): Promise<{ call(): Promise<{ body: { text?: string }; ms: number }>; onChannel: string[]; workerLog: string[]; webLog: string[] }> {
      const name = `granted-${Math.random().toString(36).slice(2, 8)}`;
      const onChannel: string[] = [];
      const web = keptLogger();
      const work = keptLogger();
      const registry = new PostgresWebhookRegistry({ connectionString: appUrl, migrate: false, logger: SILENT });
      closers.push(() => registry.close());
      await registry.ready();
      // stageTimes hears a call only when its answer came on the reply channel, not by a look at its job.
      const app = await lastNodeThroughQueue({
        registry, name, closers,
        queue: { connection: appUrl, name, migrate: false, logger: web.logger, enqueueTimeoutMs: 10_000, stageTimes: (stages) => { onChannel.push(stages.jobId); } },
        worker: { connection: appUrl, name, migrate: false, logger: work.logger },
        executor: (run) => ({ items: [{ json: { text: 'é'.repeat(BIG / 2), call: run.callId } }] }),
      });
      return {
        onChannel, workerLog: work.lines, webLog: web.lines,
        async call() {
          const started = performance.now();
          const res = await request(app).post(`/hooks/webhook/${name}`).send({ order: 1 }).expect(200);
          return { body: res.body as { text?: string }, ms: performance.now() - started };
        },
      };
    }

    it('runs queue mode as that role: lastNode answers of 100 kB come on the reply channel, and nothing is logged', async () => {
      const mode = await queueMode();
      const times: number[] = [];
      for (let call = 0; call < 3; call += 1) {
        const { body, ms } = await mode.call();
        expect(body.text).to.equal('é'.repeat(BIG / 2));
        times.push(ms);
      }
      expect(mode.onChannel).to.have.length(3);
      expect(mode.workerLog).to.deep.equal([]);
      expect(mode.webLog).to.deep.equal([]);
      process.stdout.write(`      (100 kB lastNode answers as the application's role: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms)\n`);
    });

    it('names the missing grant on the reply sequence in the worker\'s log, once, and still answers the calls', async () => {
      await owner.query(`REVOKE USAGE ON SEQUENCE ${REPLY_SEQUENCE} FROM webhooks_app`);
      try {
        const mode = await queueMode();
        const times: number[] = [];
        for (let call = 0; call < 2; call += 1) {
          const { body, ms } = await mode.call();
          expect(body.text).to.equal('é'.repeat(BIG / 2));
          times.push(ms);
        }
        process.stdout.write(`      (100 kB lastNode answers without the grant on the reply sequence: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms)\n`);
        // Answered by the look at the job, a second later: the channel could not carry them.
        expect(mode.onChannel).to.deep.equal([]);
        const told = mode.workerLog.filter((line) => line.includes(`GRANT USAGE ON SEQUENCE ${REPLY_SEQUENCE} TO`));
        expect(told, mode.workerLog.join('\n')).to.have.length(1);
        expect(told[0]).to.include('createWebhookWorker').and.to.include('a reply to a waiting call could not be sent');
      } finally {
        await owner.query(`GRANT USAGE ON SEQUENCE ${REPLY_SEQUENCE} TO webhooks_app`);
      }
    });

    it('names the missing grant to read the replies in the web instance\'s log, once, and still answers the calls', async () => {
      await owner.query('REVOKE DELETE ON workflow_webhooks.queue_replies FROM webhooks_app');
      try {
        const mode = await queueMode();
        for (let call = 0; call < 2; call += 1) expect((await mode.call()).body.text).to.equal('é'.repeat(BIG / 2));
        const told = mode.webLog.filter((line) => line.includes('GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE workflow_webhooks.queue_replies TO'));
        expect(told, mode.webLog.join('\n')).to.have.length(1);
        expect(told[0]).to.include('createWebhookQueue').and.to.include('a reply to a waiting call could not be read');
      } finally {
        await owner.query('GRANT DELETE ON workflow_webhooks.queue_replies TO webhooks_app');
      }
    });

    it('names a missing grant on a registry\'s table with the table\'s schema, in the change\'s error', async () => {
      await owner.query('REVOKE INSERT ON workflow_webhooks.workflows FROM webhooks_app');
      try {
        const registry = new PostgresWebhookRegistry({ connectionString: appUrl, migrate: false, logger: SILENT });
        closers.push(() => registry.close());
        await registry.ready();
        const error = await registry.activate({ workflowId: 'ungranted', nodes: [{ name: 'Webhook', parameters: { path: 'ungranted' } }] })
          .then(() => undefined, (failure: Error) => failure);
        expect(error?.message).to.include('run GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE workflow_webhooks.workflows TO <the application\'s role>');
      } finally {
        await owner.query('GRANT INSERT ON workflow_webhooks.workflows TO webhooks_app');
      }
    });

    it('refuses migrate: true as that role, saying to start with migrate: false and to run migrate() as a role that may create', async () => {
      const registry = new PostgresWebhookRegistry({ connectionString: appUrl, schema: 'never_migrated', logger: SILENT });
      closers.push(() => registry.close());
      const queue = createWebhookQueue({ connection: appUrl, name: 'migrating', logger: SILENT });
      closers.push(() => queue.close());
      const work = keptLogger();
      const worker = createWebhookWorker({ connection: appUrl, name: 'migrating', executor: () => ({ items: [] }), logger: work.logger });
      closers.push(() => worker.close({ timeoutMs: 1000 }));
      for (const said of [await refusal(registry.ready()), await refusal(queue.ready())]) {
        expect(said).to.include('permission denied for database app');
        expect(said).to.include('migrate: false').and.to.include('migrate() of workflow-webhooks/postgres');
      }
      await until(async () => work.lines.some((line) => line.includes('migrate: false') && line.includes('migrate() of workflow-webhooks/postgres')));
    });
  });
}

async function until(probe: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!await probe()) {
    if (Date.now() > end) throw new Error(`not true within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
