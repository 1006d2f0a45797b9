/**
 * Large uploads at once through the store's own binary store: storing their files takes longer than the job's
 * `enqueueTimeoutMs`, and grows with their size and number, so the call's deadline grows with its files: a healthy
 * store under such load takes them all (issue 62: ten 30 MiB uploads on PostgreSQL were all refused 503).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import { postgresBinaryStore, redisBinaryStore, type QueuedWebhookRun } from 'workflow-webhooks/queue';
import { queueDrained } from '../../support/queue-drained.js';
import { BASE, eventually } from '../../support/queue/setup.js';
import { QUEUE_STORES, queueStores } from '../../support/queue/stores.js';
import { makeTempDir, type TempDir } from '../../support/temp-dir.js';

const MIB = 1024 * 1024;
const UPLOADS = 6;
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
// The deadline does not depend on Redis's topology: one redis-server, and PostgreSQL.
const STORES = QUEUE_STORES.filter((store) => store.name === 'one redis-server' || store.name === 'PostgreSQL');

for (const store of queueStores('queue mode: large uploads at once', STORES)) {
  describe(`queue mode: large uploads at once on ${store.name}`, function () {
    this.timeout(120_000);
    const setup = store.setup();
    let dir: TempDir;
    beforeEach(() => { dir = makeTempDir(); });
    afterEach(() => { dir?.remove(); });

    it(`takes and runs ${UPLOADS} uploads of 20 MiB sent at once, whose files take the store longer than enqueueTimeoutMs`, async () => {
      const binaryStore = setup.onPostgres !== undefined ? postgresBinaryStore() : redisBinaryStore({ maxBytes: 32 * MIB });
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'files', nodes: [{ name: 'Webhook', parameters: { path: 'upload', httpMethod: 'POST' } }] });
      // Storing the job alone takes milliseconds; 120 MiB of files take far longer than this, on any machine.
      const queue = setup.queue({ binaryStore, enqueueTimeoutMs: 100 });
      const hashes = new Map<string, string>();
      setup.worker(async (run: QueuedWebhookRun) => {
        for (const entry of Object.values(run.items[0]?.binary ?? {})) hashes.set(entry.fileName as string, sha(entry.data ?? await readFile(entry.path as string)));
        return { items: [] };
      }, { binaryStore });
      await queue.ready();
      const app = setup.app(registry, queue, { uploads: { tempDir: dir.path } });
      const data = randomBytes(20 * MIB);
      const answers = await Promise.all(Array.from({ length: UPLOADS }, (_unused, index) =>
        request(app).post(`${BASE}/webhook/upload`).attach('file', data, `upload-${index}.bin`).then((res) => `${res.status} ${res.body.code ?? ''}`.trim())));
      expect(answers).to.deep.equal(Array.from({ length: UPLOADS }, () => '200'));
      await eventually(() => hashes.size === UPLOADS, 60_000);
      expect([...new Set(hashes.values())]).to.deep.equal([sha(data)]);
    });

    /** How many files of the current test's queue the store holds. */
    async function filesLeft(): Promise<number> {
      if (setup.onRedis !== undefined) return (await setup.onRedis.send(['KEYS', `${setup.onRedis.prefix}:${setup.name}:wh:binary:*`]) as string[]).length;
      const rows = await setup.onPostgres?.query<{ files: string }>('SELECT count(*) AS files FROM workflow_webhooks.queue_files WHERE scope = $1', [`bullmq:${setup.name}`]);
      return Number(rows?.[0]?.files);
    }

    it('runs a large upload sent twice at once under one Idempotency-Key once, and leaves no file of either behind', async () => {
      const binaryStore = setup.onPostgres !== undefined ? postgresBinaryStore() : redisBinaryStore({ maxBytes: 32 * MIB });
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'files', nodes: [{ name: 'Webhook', parameters: { path: 'upload', httpMethod: 'POST' } }], settings: { idempotencyHeader: true } });
      // The claim on the key must hold while the first call's files are stored, which takes far longer than this.
      const queue = setup.queue({ binaryStore, enqueueTimeoutMs: 1 });
      let runs = 0;
      setup.worker(async () => { runs += 1; return { items: [] }; }, { binaryStore });
      await queue.ready();
      const app = setup.app(registry, queue, { uploads: { tempDir: dir.path } });
      const data = randomBytes(20 * MIB);
      const send = () => request(app).post(`${BASE}/webhook/upload`).set('idempotency-key', 'upload-1').attach('file', data, 'twice.bin').then((res) => res.status);
      expect(await Promise.all([send(), send()])).to.deep.equal([200, 200]);
      await eventually(() => runs === 1, 60_000);
      await eventually(async () => await filesLeft() === 0, 20_000);
      await queueDrained(queue);
      expect(runs).to.equal(1);
    });
  });
}
