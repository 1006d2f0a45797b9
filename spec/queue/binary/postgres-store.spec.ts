import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { postgresBinaryStore } from 'workflow-webhooks/queue';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { describeBinaryStoreContract } from '../../support/queue/store-contract.js';
import { freshName, openSpecLink, type SpecLink } from '../../support/queue/postgres-link.js';
import { findService, markNotRun } from '../../support/services.js';
import { makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { closeAll } from '../../support/close-all.js';

if (findService(POSTGRES) === undefined) {
  markNotRun('the PostgreSQL binary store', POSTGRES);
} else {
  describe('the PostgreSQL binary store', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    let admin: pg.Pool;
    let opened: SpecLink;
    let dir: TempDir;
    const schema = freshName('queue_files');
    const rows = async (table: string): Promise<number> => (await admin.query(`SELECT count(*)::int AS n FROM ${schema}.${table}`)).rows[0].n as number;

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      admin = new pg.Pool({ connectionString: server.url, max: 2 });
      opened = await openSpecLink(server.url, schema);
      dir = makeTempDir();
    });
    after(() => closeAll(() => dir?.remove(), () => opened?.close(), () => admin?.end()));

    // The store gets what a queue gives it: statements on the queue's pool, in the library's schema.
    describeBinaryStoreContract('PostgreSQL', (maxBytes) => {
      const store = postgresBinaryStore({ maxBytes });
      store.attach?.(opened.link.binaryHost);
      return store;
    });

    it('stores a file of 3 MiB from disk in rows of 256 KiB, gives it back byte for byte, and removes every row of it', async () => {
      const store = postgresBinaryStore();
      store.attach?.(opened.link.binaryHost);
      const data = randomBytes(3 * 1024 * 1024);
      const path = join(dir.path, 'three.bin');
      await writeFile(path, data);
      const chunksBefore = await rows('queue_file_chunks');
      const ref = await store.put({ path }, data.length);
      expect(await rows('queue_file_chunks') - chunksBefore).to.equal(12);
      const stored = await store.get(ref);
      expect('data' in stored && stored.data.equals(data)).to.equal(true);
      await store.remove([ref]);
      expect(await rows('queue_file_chunks')).to.equal(chunksBefore);
      expect((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.queue_files WHERE file_id = $1`, [ref])).rows[0].n).to.equal(0);
    });

    it('leaves nothing of a file that outgrew maxBytes while it was read', async () => {
      const store = postgresBinaryStore({ maxBytes: 300 * 1024 });
      store.attach?.(opened.link.binaryHost);
      const path = join(dir.path, 'grown.bin');
      await writeFile(path, randomBytes(600 * 1024));
      const chunksBefore = await rows('queue_file_chunks');
      const error = await store.put({ path }, 100).then(() => undefined, (caught: Error) => caught);
      expect(error?.message).to.include('maxBytes');
      expect(await rows('queue_file_chunks')).to.equal(chunksBefore);
    });
  });
}
