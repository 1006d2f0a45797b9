/**
 * A pool with every connection taken is load, not an outage: two instances, each with a pool of 2 connections, take
 * 600 calls at once each to an address limited to 100 calls. Calls wait for a connection in a bounded line and past
 * the deadline are refused 503 with Retry-After; no instance reports PostgreSQL lost or counts alone, so never more
 * than the limit passes, and each call let through is counted in the database.
 */
import { expect } from 'chai';
import { request } from 'node:http';
import pg from 'pg';
import { createWebhookMiddleware, type WorkflowWebhooks } from 'workflow-webhooks';
import { PostgresWebhookRegistry, type PostgresPoolLike, type PostgresRegistryEvent } from 'workflow-webhooks/postgres';
import { eventually } from '../support/registry-contract/instances.js';
import { workflowOf } from '../support/registry-contract/fixture.js';
import { listen } from '../support/raw-http.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';

const LIMIT = 100;
const CALLS = 600;

const orders: WorkflowWebhooks = {
  workflowId: 'orders',
  nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }],
  settings: { rateLimit: { limit: LIMIT, windowMs: 600_000 } },
};

function call(url: string, method = 'POST'): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}

if (findService(POSTGRES) === undefined) {
  markNotRun('rate limits of two instances whose pools are all taken', POSTGRES);
} else {
  describe('rate limits of two instances whose PostgreSQL pools are all taken', function () {
    this.timeout(90_000);
    let server: PostgresServer;
    const closers: Array<() => Promise<unknown>> = [];

    before(async () => { server = await sharedPostgres() as PostgresServer; });
    after(async () => {
      for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    });

    it('let at most the limit through of 600 calls at once on each, refuse the calls that found no connection 503 with Retry-After, and never report PostgreSQL lost', async () => {
      const schema = `busy_${process.pid}`;
      const events: PostgresRegistryEvent[] = [];
      const warnings: string[] = [];
      const urls: string[] = [];
      const registries: PostgresWebhookRegistry[] = [];
      for (const instance of [0, 1]) {
        const pool = new pg.Pool({ connectionString: server.url, max: 2 });
        pool.on('error', () => undefined);
        closers.push(() => pool.end());
        const registry = new PostgresWebhookRegistry({ pool: pool as unknown as PostgresPoolLike, schema, commandTimeoutMs: 100, onEvent: (event) => events.push(event) });
        closers.push(() => registry.close());
        registries.push(registry);
        await registry.ready();
        if (instance === 0) await registry.activate(orders);
        const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), {
          logger: { warn: (_fields, message) => warnings.push(String(message)), error: () => undefined },
        });
        const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
        closers.push(() => running.close());
        urls.push(`http://127.0.0.1:${running.port}/webhook/orders`);
      }
      for (const url of urls) await eventually(async () => (await call(url, 'GET')).status === 405, 3000);
      // Changes made elsewhere meanwhile: each instance reads the change log through its taken pool.
      const writer = new PostgresWebhookRegistry({ connectionString: server.url, schema, onEvent: () => undefined });
      closers.push(() => writer.close());
      await writer.ready();

      const changes = Promise.all(Array.from({ length: 5 }, (_, index) => writer.activate(workflowOf(`other-${index}`, { path: `other-${index}`, httpMethod: 'POST' }))));
      const answers = await Promise.all(urls.flatMap((url) => Array.from({ length: CALLS }, () => call(url))));
      await changes;

      const through = answers.filter((answer) => answer.status === 200).length;
      const refused = answers.filter((answer) => answer.status === 503);
      expect(through, `calls through of ${2 * CALLS}, limit ${LIMIT}`).to.be.at.most(LIMIT);
      expect(refused.length, 'calls refused for want of a connection in time').to.be.above(0);
      expect(refused.filter((answer) => answer.retryAfter === undefined)).to.deep.equal([]);
      expect(answers.filter((answer) => ![200, 429, 503].includes(answer.status))).to.deep.equal([]);
      expect(events.filter((event) => event.type === 'disconnected').map((event) => event.type)).to.deep.equal([]);
      expect(warnings.filter((message) => message.includes('each instance counts its own calls'))).to.deep.equal([]);
      // Every call let through was counted in the database, none in an instance alone.
      const pool = new pg.Pool({ connectionString: server.url, max: 1 });
      closers.push(() => pool.end());
      const rows = await pool.query(`SELECT coalesce(sum(calls), 0)::integer AS calls FROM ${schema}.rate_budgets WHERE window_ends > ${schema}.now_ms()`);
      expect(rows.rows[0]?.calls, 'calls the database counted').to.equal(through);
      for (const registry of registries) expect(registry.health().status).to.equal('ready');
    });
  });
}
