/**
 * Every instance of a shared PostgreSQL registry compiles a workflow's schemas itself, when it reads a change and
 * when it starts: a hostile schema is refused before it is stored, so no other instance ever compiles it, and the
 * largest schema the bounds let through costs each instance a short compile, not a stall, on a real server.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect } from 'chai';
import pg from 'pg';
import { WebhookError, type JsonSchema, type WorkflowWebhooks } from 'workflow-webhooks';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { eventually } from '../support/registry-contract/instances.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';
import { closeAll, eachOf } from '../support/close-all.js';

/** The longest an instance's event loop may wait while it compiles what another instance activated (as in spec/webhooks/validate). */
const LONGEST_GAP_MS = 500;

const workflow = (workflowId: string, body: JsonSchema): WorkflowWebhooks => ({
  workflowId, nodes: [{ name: 'Hook', parameters: { path: workflowId, httpMethod: 'POST' } }], schemas: { Hook: { body } },
});

/** Definitions referring to the one before ten times each, and 200 alternatives: near the size bound, every one a call. */
function largest(): JsonSchema {
  const $defs: Record<string, unknown> = { d0: { type: 'string', maxLength: 8 } };
  for (let level = 1; level < 12; level++) {
    $defs[`d${level}`] = { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`p${index}`, { $ref: `#/$defs/d${level - 1}` }])) };
  }
  return { $defs, anyOf: [{ $ref: '#/$defs/d11' }, ...Array.from({ length: 200 }, (_, index) => ({ type: 'object', required: [`k${index}`] }))] };
}

if (findService(POSTGRES) === undefined) {
  markNotRun('hostile schemas through the PostgreSQL registry', POSTGRES);
} else {
  describe('hostile schemas through the PostgreSQL registry', function () {
    this.timeout(30_000);
    let server: PostgresServer;
    let pool: pg.Pool;
    const opened: PostgresWebhookRegistry[] = [];
    const schema = `hostile_${process.pid}`;

    async function instance(): Promise<PostgresWebhookRegistry> {
      const registry = new PostgresWebhookRegistry({ pool, schema, onEvent: () => undefined });
      opened.push(registry);
      await registry.ready();
      return registry;
    }

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      pool = new pg.Pool({ connectionString: server.url, max: 10 });
      pool.on('error', () => undefined);
    });
    after(() => closeAll(...eachOf(opened.splice(0), (registry) => registry.close()), () => pool?.end()));

    it('refuses a hostile schema on the instance that activates it, and stores nothing another instance could compile', async () => {
      const [first, second] = [await instance(), await instance()];
      const recursion = { $defs: { a: { anyOf: [{ items: { $ref: '#/$defs/a' } }, { items: { $ref: '#/$defs/a' } }] } }, $ref: '#/$defs/a' };
      const refused = await first.activate(workflow('hostile', recursion)).then(() => undefined, (error: unknown) => error);
      expect(refused).to.be.instanceOf(WebhookError).with.property('code', 'WEBHOOK_INVALID_NODE');
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".workflows WHERE workflow_id = 'hostile'`).catch(() => ({ rows: [{ n: 0 }] }));
      expect(rows[0]?.n).to.equal(0);
      expect((await second.lookup('production', 'POST', 'hostile')).found).to.equal(false);
    });

    it('lets every instance, and one that starts afterwards, compile the largest allowed schema without a stall', async () => {
      const [first, second] = [await instance(), await instance()];
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      await first.activate(workflow('largest', largest()));
      await eventually(async () => (await second.lookup('production', 'POST', 'largest')).found, 5_000);
      const third = await instance();
      expect((await third.lookup('production', 'POST', 'largest')).found).to.equal(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      delay.disable();
      console.log(`      longest event-loop wait ${(delay.max / 1e6).toFixed(1)} ms over three instances compiling it`);
      expect(delay.max / 1e6).to.be.below(LONGEST_GAP_MS);
    });
  });
}
