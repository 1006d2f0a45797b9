import { expect } from 'chai';
import pg from 'pg';
import { PostgresCallLog, PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { callOf } from '../support/call-log-contract/index.js';
import { withFakeTimers } from '../support/fake-clock.js';
import { PGBOUNCER, PgBouncer, type PoolMode } from '../support/pgbouncer.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { describeRegistryContract } from '../support/registry-contract/index.js';
import { postgresRegistryHarness } from '../support/postgres/registry-harness.js';
import { workflowOf } from '../support/registry-contract/fixture.js';
import { findService, markNotRun } from '../support/services.js';

const QUIET = { onEvent: (): void => undefined };
let next = 0;
const freshSchema = (): string => `bouncer_${process.pid}_${(next += 1)}`;

/**
 * Resolves once `registry` serves `workflowId`'s route, or rejects after `ms`: polled on setImmediate, as the
 * registry's own one-second poll is stopped (fake setInterval) while the specs wait.
 */
async function served(registry: PostgresWebhookRegistry, path: string, ms = 5000): Promise<void> {
  const until = performance.now() + ms;
  while (!(await registry.lookup('production', 'POST', path)).found) {
    if (performance.now() > until) throw new Error(`the other instance did not serve ${path} within ${ms} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Two instances, the second's one-second read of the change log stopped (setInterval faked): only a notification its
 * LISTEN hears can bring it the first one's change.
 */
async function heardByListen(pooledUrl: string, directUrl?: string): Promise<void> {
  const schema = freshSchema();
  const a = new PostgresWebhookRegistry({ connectionString: pooledUrl, directUrl, schema, ...QUIET });
  try {
    await a.ready();
    await withFakeTimers(async () => {
      const b = new PostgresWebhookRegistry({ connectionString: pooledUrl, directUrl, schema, ...QUIET });
      try {
        await b.ready();
        await a.activate(workflowOf('orders', { path: 'orders', httpMethod: 'POST' }));
        await served(b, 'orders');
      } finally {
        await b.close();
      }
    }, ['setInterval', 'clearInterval']);
  } finally {
    await a.close();
  }
}

/** The registry contract, each registry on `pool` (and `directUrl`, when given). */
function contractThrough(name: string, pool: () => pg.Pool, directUrl?: () => string): void {
  describeRegistryContract(name, postgresRegistryHarness(() => ({ pool: pool(), directUrl: directUrl?.() }), pool, freshSchema));
}

/** A pool of the spec's own through the pooler, for the registries of a contract run. */
function poolThrough(bouncer: () => PgBouncer): () => pg.Pool {
  let pool: pg.Pool | undefined;
  before(() => {
    pool = new pg.Pool({ connectionString: bouncer().url, max: 40 });
    pool.on('error', () => undefined);
  });
  after(async () => { await pool?.end(); });
  return () => pool as pg.Pool;
}

function startBouncer(mode: PoolMode, server: () => PostgresServer): () => PgBouncer {
  let bouncer: PgBouncer | undefined;
  before(async () => { bouncer = await PgBouncer.start(server(), mode); });
  after(async () => { await bouncer?.stop(); });
  return () => bouncer as PgBouncer;
}

if (findService(POSTGRES) === undefined) {
  markNotRun('the PostgreSQL registry through PgBouncer', POSTGRES);
} else if (findService(PGBOUNCER) === undefined) {
  markNotRun('the PostgreSQL registry through PgBouncer', PGBOUNCER);
} else {
  describe('the PostgreSQL registry through PgBouncer', function () {
    this.timeout(30_000);
    let server: PostgresServer;
    before(async () => { server = await sharedPostgres() as PostgresServer; });

    describe('in session mode', () => {
      const bouncer = startBouncer('session', () => server);

      it('brings a change made on one instance to another by LISTEN, with its one-second poll stopped', async () => {
        await heardByListen(bouncer().url);
      });

      contractThrough('PostgresWebhookRegistry through PgBouncer in session mode', poolThrough(bouncer));
    });

    describe('in transaction mode', () => {
      const bouncer = startBouncer('transaction', () => server);

      it('refuses a directUrl that is no connection string at once, naming the option', () => {
        expect(() => new PostgresWebhookRegistry({ connectionString: bouncer().url, directUrl: '' })).to.throw(TypeError, /option directUrl must be a non-empty connection string/);
      });

      it('refuses to start without directUrl, with a TypeError that names directUrl and session mode, instead of a LISTEN that hears nothing', async () => {
        const registry = new PostgresWebhookRegistry({ connectionString: bouncer().url, schema: freshSchema(), ...QUIET });
        const error = await registry.ready().then(() => undefined, (caught: unknown) => caught as Error);
        await registry.close();
        expect(error).to.be.instanceOf(TypeError);
        expect(error?.message).to.include('keeps no session').and.include('give option directUrl').and.include('a pooler in session mode');
      });

      it('refuses a directUrl that is itself a pooler in transaction mode, naming directUrl', async () => {
        const registry = new PostgresWebhookRegistry({ connectionString: bouncer().url, directUrl: bouncer().url, schema: freshSchema(), ...QUIET });
        const error = await registry.ready().then(() => undefined, (caught: unknown) => caught as Error);
        await registry.close();
        expect(error).to.be.instanceOf(TypeError);
        expect(error?.message).to.include('the connection of option directUrl keeps no session');
      });

      it('with directUrl, brings a change made on one instance to another by LISTEN, with its one-second poll stopped', async () => {
        await heardByListen(bouncer().url, server.url);
      });

      it('tells the console\'s shared call log\'s host, once, that its LISTEN would hear nothing, naming directUrl', async () => {
        const errors: Error[] = [];
        const log = new PostgresCallLog({ connectionString: bouncer().url, schema: freshSchema(), onError: (error) => errors.push(error) });
        try {
          log.subscribe(() => undefined);
          const until = Date.now() + 10_000;
          while (errors.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
          await new Promise((resolve) => setTimeout(resolve, 700));
          expect(errors.map((error) => [error.constructor.name, /give option directUrl/.test(error.message)])).to.deep.equal([['TypeError', true]]);
        } finally {
          await log.close();
        }
      });

      it('with directUrl, the console\'s shared call log hears a call appended through the pooler', async () => {
        const schema = freshSchema();
        const log = new PostgresCallLog({ connectionString: bouncer().url, directUrl: server.url, schema, onError: () => undefined });
        try {
          const heard = new Promise<string>((resolve) => { log.subscribe((call) => resolve(call.callId)); });
          await log.subscribed();
          await log.append(callOf(3));
          expect(await heard).to.equal(callOf(3).callId);
        } finally {
          await log.close();
        }
      });

      contractThrough('PostgresWebhookRegistry through PgBouncer in transaction mode, with directUrl', poolThrough(bouncer), () => server.url);
    });
  });
}
