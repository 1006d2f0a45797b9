/**
 * The binary store contract as one suite: every store queue mode ships (and a host's own) passes the same tests.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { BinaryStore, StoredBinary } from 'workflow-webhooks/queue';
import { makeTempDir, type TempDir } from '../temp-dir.js';

async function bytesOf(stored: StoredBinary): Promise<Buffer> {
  return 'data' in stored ? stored.data : readFile(stored.path);
}

/** `make(maxBytes)` gives a store ready for use (attached where it needs to be). */
export function describeBinaryStoreContract(name: string, make: (maxBytes: number) => BinaryStore): void {
  describe(`the ${name} binary store`, () => {
    let dir: TempDir;
    before(() => { dir = makeTempDir(); });
    after(() => { dir?.remove(); });

    it('gives back byte for byte what was put from memory', async () => {
      const store = make(1024 * 1024);
      const data = randomBytes(200_000);
      const ref = await store.put({ data }, data.length);
      expect((await bytesOf(await store.get(ref))).equals(data)).to.equal(true);
    });

    it('gives back byte for byte what was put from a file, and names itself in `kind`', async () => {
      const store = make(1024 * 1024);
      const data = randomBytes(300_000);
      const path = join(dir.path, 'upload.bin');
      await writeFile(path, data);
      const ref = await store.put({ path }, data.length);
      expect((await bytesOf(await store.get(ref))).equals(data)).to.equal(true);
      expect(store.kind).to.be.a('string').and.not.equal('');
    });

    it('forgets what was removed, and removing what it never held is no error', async () => {
      const store = make(1024);
      const ref = await store.put({ data: Buffer.from('gone soon') }, 9);
      await store.remove([ref, '00000000-0000-4000-8000-000000000000', '../../etc/passwd']);
      let failed = false;
      await store.get(ref).catch(() => { failed = true; });
      expect(failed).to.equal(true);
    });

    it('refuses a file larger than its maxBytes, and says so', async () => {
      const store = make(10);
      expect(store.maxBytes).to.equal(10);
      const error = await store.put({ data: Buffer.alloc(11) }, 11).then(() => undefined, (caught: unknown) => caught as Error);
      expect(error?.message).to.include('maxBytes');
    });

    it('never reads outside itself for a reference a job could hold', async () => {
      const store = make(1024);
      let failed = false;
      await store.get('../../etc/passwd').catch(() => { failed = true; });
      expect(failed).to.equal(true);
    });
  });
}
