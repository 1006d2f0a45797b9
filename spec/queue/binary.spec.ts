import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import request from 'supertest';
import { MemoryWebhookRegistry } from 'workflow-webhooks';
import { directoryBinaryStore, postgresBinaryStore, redisBinaryStore, type BinaryStore, type QueuedWebhookRun } from 'workflow-webhooks/queue';
import { BASE, eventually } from '../support/queue/setup.js';
import { queueStores, type PostgresSide } from '../support/queue/stores.js';
import { filesUnder, makeTempDir, type TempDir } from '../support/temp-dir.js';

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** Uploads reach the worker byte for byte, inline or through a store, and leave nothing behind once run. */
for (const store of queueStores('queue mode: binary data')) {
  describe(`queue mode: binary data on ${store.name}`, function () {
    this.timeout(60_000);
    let dir: TempDir;
    const setup = store.setup();
    const { onRedis, onPostgres } = setup;
    beforeEach(() => { dir = makeTempDir(); });
    afterEach(() => { dir?.remove(); });

    /** Serves an upload webhook whose worker hashes every file it gets; resolves the hashes by file name. */
    async function serve(binaryStore: BinaryStore | undefined) {
      const hashes = new Map<string, string>();
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'files', nodes: [{ name: 'Webhook', parameters: { path: 'upload', httpMethod: 'POST' } }] });
      const queue = setup.queue({ binaryStore });
      setup.worker(async (run: QueuedWebhookRun) => {
        for (const entry of Object.values(run.items[0]?.binary ?? {})) {
          hashes.set(entry.fileName as string, sha(entry.data ?? await readFile(entry.path as string)));
        }
        return { items: [] };
      }, { binaryStore });
      const app = setup.app(registry, queue, { uploads: { tempDir: `${dir.path}/uploads`, memoryThreshold: 64 * 1024 } });
      return { app, hashes, queue };
    }

    it('hands the worker a 500 KiB file inside the job, byte for byte, and leaves no temp file on the web instance', async () => {
      const { app, hashes } = await serve(undefined);
      const data = randomBytes(500 * 1024);
      await request(app).post(`${BASE}/webhook/upload`).attach('file', data, 'half.bin').expect(200);
      await eventually(() => hashes.has('half.bin'));
      expect(hashes.get('half.bin')).to.equal(sha(data));
      // The temp files go right after the answer, once the job is stored or refused.
      await eventually(() => filesUnder(`${dir.path}/uploads`).length === 0, 2000);
    });

    /**
     * The store's own binary store (files kept in Redis, or in PostgreSQL), and what it holds of the current queue.
     */
    const inStore: { make(maxBytes?: number): BinaryStore; left(): Promise<number> } = onRedis !== undefined
      ? {
        make: (maxBytes?: number) => redisBinaryStore(maxBytes === undefined ? {} : { maxBytes }),
        left: async () => (await onRedis.send(['KEYS', `${onRedis.prefix}:${onRedis.name}:wh:binary:*`]) as string[]).length,
      }
      : {
        make: (maxBytes?: number) => postgresBinaryStore(maxBytes === undefined ? {} : { maxBytes }),
        // The library's tables of files and their rows, under the queue's scope (BullMQ's schema and the queue name).
        left: async () => Number((await (onPostgres as PostgresSide).query<{ rows: string }>(`SELECT
          (SELECT count(*) FROM workflow_webhooks.queue_files WHERE scope = $1) + (SELECT count(*) FROM workflow_webhooks.queue_file_chunks WHERE scope = $1) AS rows`,
        [`bullmq:${setup.name}`]))[0]?.rows),
      };

    it('hands the worker a 3 MiB file through the store, byte for byte, and removes it from the store once run', async () => {
      const { app, hashes } = await serve(inStore.make());
      const data = randomBytes(3 * 1024 * 1024);
      await request(app).post(`${BASE}/webhook/upload`).attach('file', data, 'mid.bin').expect(200);
      await eventually(() => hashes.has('mid.bin'));
      expect(hashes.get('mid.bin')).to.equal(sha(data));
      await eventually(async () => await inStore.left() === 0);
    });

    // Refusals and the shared directory depend on no topology of Redis: once on Redis, and on PostgreSQL.
    if (store.name === 'one redis-server' || onPostgres !== undefined) {
      it('hands the worker a 50 MiB file through a shared directory, byte for byte, and empties the directory once run', async () => {
        const shared = `${dir.path}/shared`;
        const { app, hashes } = await serve(directoryBinaryStore({ directory: shared }));
        const data = randomBytes(50 * 1024 * 1024);
        await request(app).post(`${BASE}/webhook/upload`).attach('file', data, 'big.bin').expect(200);
        await eventually(() => hashes.has('big.bin'), 30_000);
        expect(hashes.get('big.bin')).to.equal(sha(data));
        await eventually(() => filesUnder(shared).length === 0);
        // The temp files go right after the answer, once the job is stored or refused.
        await eventually(() => filesUnder(`${dir.path}/uploads`).length === 0, 2000);
      });

      it('refuses files too large for a job without a store with 413 QUEUE_PAYLOAD_TOO_LARGE naming the limit, storing nothing', async () => {
        const { app, queue } = await serve(undefined);
        const res = await request(app).post(`${BASE}/webhook/upload`).attach('file', randomBytes(1024 * 1024 + 1), 'too.bin').expect(413);
        expect(res.body.code).to.equal('QUEUE_PAYLOAD_TOO_LARGE');
        expect(res.body.message).to.include('inlineBinaryBytes (1048576)');
        expect(await (await queue.ready().then(() => queue.bullQueue)).getJobCounts()).to.include({ waiting: 0, active: 0, completed: 0 });
        // The temp files go right after the answer, once the job is stored or refused.
        await eventually(() => filesUnder(`${dir.path}/uploads`).length === 0, 2000);
      });

      it('answers 503 QUEUE_UNAVAILABLE when the binary store fails, never 200, and stores no job', async () => {
        const broken: BinaryStore = {
          kind: 'broken', maxBytes: Infinity,
          put: () => Promise.reject(new Error('disk full')),
          get: () => Promise.reject(new Error('never stored')),
          remove: () => Promise.resolve(),
        };
        const { app, queue } = await serve(broken);
        const res = await request(app).post(`${BASE}/webhook/upload`).attach('file', randomBytes(2 * 1024 * 1024), 'big.bin').expect(503);
        expect(res.body.code).to.equal('QUEUE_UNAVAILABLE');
        expect(res.headers['retry-after']).to.equal('5');
        await queue.ready();
        expect(await queue.bullQueue.getJobCounts()).to.include({ waiting: 0, active: 0, completed: 0 });
      });

    }

    if (store.name === 'one redis-server' || onPostgres !== undefined) {
      it('refuses a file larger than the store takes with 413, before storing anything', async () => {
        const { app } = await serve(inStore.make(2 * 1024 * 1024));
        const res = await request(app).post(`${BASE}/webhook/upload`).attach('file', randomBytes(3 * 1024 * 1024), 'big.bin').expect(413);
        expect(res.body.message).to.include('maxBytes (2097152)');
        expect(await inStore.left()).to.equal(0);
      });
    }
  });
}
