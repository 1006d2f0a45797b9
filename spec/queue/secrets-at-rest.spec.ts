/**
 * What a reader of the store (Redis's keys, PostgreSQL's rows) sees of a queued call: never the credential the
 * webhook's own guard checked, and with the `encryption` option nothing of the call at all (headers, body, result),
 * while workers and waiting callers work as before, keys rotate, and a worker without the key says so.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { MemoryWebhookRegistry, type WebhookNodeParameters } from 'workflow-webhooks';
import type { QueuedWebhookRun, WebhookWorkerEvent } from 'workflow-webhooks/queue';
import { queueDrained } from '../support/queue-drained.js';
import { BASE, eventually, type QueueSetup } from '../support/queue/setup.js';
import { QUEUE_STORES, queueStores, type PostgresSide } from '../support/queue/stores.js';

const CHECKED = 'partner-secret-7f3a9c';
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.bearer-token-value';
const COOKIE = 'sid=cookie-session-0042';
const BODY_MARK = 'iban-DE44500105175407324931';

/** Everything Redis holds under the test's queue, as text. */
async function redisText(setup: QueueSetup): Promise<string> {
  const { redis } = setup;
  const keys = await redis.keys(`bull:${setup.name}:*`);
  const parts: string[] = [];
  for (const key of keys) {
    const type = await redis.type(key);
    if (type === 'hash') parts.push(JSON.stringify(await redis.hGetAll(key)));
    else if (type === 'string') parts.push(String(await redis.get(key)));
    else if (type === 'list') parts.push(JSON.stringify(await redis.lRange(key, 0, -1)));
    else if (type === 'zset') parts.push(JSON.stringify(await redis.zRange(key, 0, -1)));
    else if (type === 'stream') parts.push(JSON.stringify(await redis.xRange(key, '-', '+')));
  }
  return parts.join('\n');
}

/** Every row of every table outside PostgreSQL's own schemas (BullMQ's jobs, the library's tables), one text each. */
async function postgresRows(postgres: PostgresSide): Promise<string[]> {
  const tables = await postgres.query<{ name: string }>(`SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`);
  const rows: string[] = [];
  for (const { name } of tables) rows.push(...(await postgres.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t`)).map(({ row }) => `${name} ${row}`));
  return rows;
}

// What is stored does not depend on Redis's topology: one redis-server, and PostgreSQL.
const STORES = QUEUE_STORES.filter((store) => store.name === 'one redis-server' || store.name === 'PostgreSQL');

for (const store of queueStores('queue mode: what the store keeps of a call', STORES)) {
  describe(`queue mode: what the store keeps of a call on ${store.name}`, function () {
    this.timeout(20_000);
    const setup = store.setup();
    const { onRedis, onPostgres } = setup;
    // The rows there were before the test: PostgreSQL keeps every test's rows in the same tables; only new ones count.
    let earlier = new Set<string>();
    beforeEach(async () => { earlier = new Set(onPostgres === undefined ? [] : await postgresRows(onPostgres)); });

    /** What the store holds of the current test's queue, as text. */
    async function storedText(): Promise<string> {
      if (onRedis !== undefined) return redisText(onRedis);
      return (await postgresRows(onPostgres as PostgresSide)).filter((row) => !earlier.has(row)).join('\n');
    }

    async function guarded(parameters: Partial<WebhookNodeParameters> = {}) {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({
        workflowId: 'partner', nodes: [{ name: 'Webhook', credentials: { ref: 'partner' }, parameters: { path: 'in', httpMethod: 'POST', authentication: 'headerAuth', responseMode: 'lastNode', ...parameters } }],
      });
      return registry;
    }
    const credentials = () => ({ name: 'X-Authentication', value: CHECKED });
    const call = (app: Parameters<typeof request>[0]) => request(app).post(`${BASE}/webhook/in`)
      .set('x-authentication', CHECKED).set('authorization', `Bearer ${BEARER}`).set('cookie', COOKIE).send({ account: BODY_MARK });

    it('stores the job without the header the webhook\'s authentication checked; the workflow gets every other header', async () => {
      const seen: Record<string, unknown>[] = [];
      const queue = setup.queue();
      setup.worker(async (run: QueuedWebhookRun) => {
        seen.push(run.items[0]?.json.headers as Record<string, unknown>);
        return { items: [{ json: { echoed: run.items[0]?.json.headers } }] };
      });
      const answer = await call(setup.app(await guarded(), queue, { credentials })).expect(200);
      expect(seen[0]).to.not.have.property('x-authentication');
      expect(seen[0]).to.include({ authorization: `Bearer ${BEARER}`, cookie: COOKIE });
      expect(JSON.stringify(answer.body)).to.not.include(CHECKED);
      const text = await storedText();
      expect(text, 'the look reaches the stored job').to.include(BODY_MARK);
      expect(text).to.not.include(CHECKED);
    });

    it('keeps nothing of the call readable in the store with the encryption option, and runs and answers as without it', async () => {
      const encryption = { currentKeyId: 'k1', keys: { k1: randomBytes(32).toString('base64') } };
      const queue = setup.queue({ encryption });
      setup.worker(async (run: QueuedWebhookRun) => ({ items: [{ json: { got: run.items[0]?.json.body, auth: (run.items[0]?.json.headers as Record<string, string>).authorization } }] }), { encryption });
      const answer = await call(setup.app(await guarded(), queue, { credentials })).expect(200);
      expect(answer.body).to.deep.equal({ got: { account: BODY_MARK }, auth: `Bearer ${BEARER}` });
      const text = await storedText();
      expect(text).to.include('sealedItem');
      for (const secret of [CHECKED, BEARER, COOKIE, BODY_MARK]) expect(text).to.not.include(secret);
      // The answer can arrive before BullMQ has marked the job completed: read it once no job is left to run.
      await queueDrained(queue);
      const [job] = await queue.bullQueue.getJobs(['completed']);
      expect(job, 'the completed job').to.not.equal(undefined);
      const status = await queue.status(job?.id as string);
      expect(status?.result?.items[0]?.json).to.deep.equal({ got: { account: BODY_MARK }, auth: `Bearer ${BEARER}` });
    });

    it('opens jobs sealed with a retired key while new ones are sealed with the current key', async () => {
      const k1 = randomBytes(32);
      const k2 = randomBytes(32).toString('hex');
      const old = setup.queue({ encryption: { currentKeyId: 'k1', keys: { k1 } } });
      const registry = await guarded({ responseMode: 'onReceived' });
      await call(setup.app(registry, old, { credentials })).expect(200);
      const rotated = setup.queue({ encryption: { currentKeyId: 'k2', keys: { k1, k2 } } });
      await call(setup.app(registry, rotated, { credentials })).expect(200);
      const ran: unknown[] = [];
      setup.worker(async (run) => { ran.push(run.items[0]?.json.body); return { items: [] }; }, { encryption: { currentKeyId: 'k2', keys: { k1, k2 } } });
      await eventually(() => ran.length === 2);
      expect(ran).to.deep.equal([{ account: BODY_MARK }, { account: BODY_MARK }]);
      // A run can end before its job is marked completed: read the jobs once none is left to run.
      await queueDrained(old);
      const kids = (await old.bullQueue.getJobs(['completed'])).map((job) => job.data.sealedItem?.kid).sort();
      expect(kids).to.deep.equal(['k1', 'k2']);
    });

    it('fails a job whose key a worker does not have, saying which key, instead of running it with nothing', async () => {
      const failures: string[] = [];
      const queue = setup.queue({ encryption: { currentKeyId: 'new-key', keys: { 'new-key': randomBytes(32) } }, attempts: 1 });
      let ran = false;
      setup.worker(async () => { ran = true; return { items: [] }; }, {
        encryption: { currentKeyId: 'other', keys: { other: randomBytes(32) } },
        onEvent: (event: WebhookWorkerEvent) => { if (event.type === 'failed') failures.push(event.error.message); },
      });
      await call(setup.app(await guarded({ responseMode: 'onReceived' }), queue, { credentials })).expect(200);
      await eventually(() => failures.length === 1);
      expect(failures[0]).to.match(/encrypted with key "new-key"/);
      expect(ran).to.equal(false);
    });

    it('refuses an encryption key that is not 32 bytes, or a current key id it does not list, at the factory', () => {
      expect(() => setup.queue({ encryption: { currentKeyId: 'k', keys: { k: 'too-short' } } })).to.throw(TypeError, /32 bytes/);
      expect(() => setup.queue({ encryption: { currentKeyId: 'missing', keys: { k: randomBytes(32) } } })).to.throw(TypeError, /currentKeyId/);
    });
  });
}
