import { existsSync, readdirSync, readlinkSync, truncateSync, watch, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { listen } from '../../support/raw-http.js';
import { eventually, filesUnder, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

function binaryParser(res: request.Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => callback(null, Buffer.concat(chunks)));
}

/**
 * How many descriptors this process holds open on `path`, or on any file under `directory` (Linux: the links in
 * /proc/self/fd). In queue mode the answer is streamed from the binary store's copy, in that directory.
 */
function openDescriptors(path: string, directory: string | undefined): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target === path || (directory !== undefined && target.startsWith(`${directory}/`))) count += 1;
    } catch {
      // Closed between the listing and the read.
    }
  }
  return count;
}

/**
 * Asks for the file answer, reads its first bytes, then hangs up. Gives what `whileReading` saw with the first bytes
 * in hand: the descriptor count then shows the check watches the file the answer is really read from.
 */
function readSomeThenHangUp(port: number, whileReading: () => number = () => 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: `${BASE}/webhook/file` }, (res) => {
      res.once('data', () => {
        const seen = whileReading();
        req.destroy();
        resolve(seen);
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => { if (error.code !== 'ECONNRESET') reject(error); });
    req.end();
  });
}

for (const mode of runModes('file answer', { onPostgres: true })) for (const host of hostsOf(mode, HOSTS)) {
  describe(`a file answer (firstEntryBinary from a path) in ${host.name}${mode.suffix}`, function fileAnswer() {
    mode.hooks();
    let temp: TempDir;
    let path: string;
    let close: () => Promise<void>;
    let port: number;
    let answered: string;

    before(() => {
      // Open descriptors are counted through /proc: these specs need Linux, as the project's machines and CI are.
      if (!existsSync('/proc/self/fd')) throw new Error('counting open files needs /proc/self/fd (Linux)');
    });

    beforeEach(async () => {
      temp = makeTempDir();
      path = join(temp.path, 'large.bin');
      answered = path;
      writeFileSync(path, '');
      // Sparse: far larger than any socket buffer, without using the disk. In queue mode the worker copies it into
      // the binary store for every call, so it is smaller there (still many socket buffers long).
      truncateSync(path, (mode.queued ? 32 : 512) * 1024 * 1024);
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', {
        path: 'file', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'firstEntryBinary', options: { responseBinaryPropertyName: 'data' },
      }));
      const app = host.build(createWebhookMiddleware(registry, mode.executor(async () => ({
        items: [{ json: {}, binary: { data: { mimeType: 'application/octet-stream', path: answered } } }],
      }))));
      ({ close, port } = await listen(app));
    });
    afterEach(async () => { await close(); temp.remove(); });

    // In queue mode the web side reads the store's copy into memory and removes it (lib/queue/outcome.ts), so no
    // descriptor is held while the answer streams: what must not leak there is the copy itself.
    if (!mode.queued) it('closes the file at once when the caller hangs up mid-way', async () => {
      const openWhileReading = await readSomeThenHangUp(port, () => openDescriptors(path, mode.binaryDirectory));
      // Open while the answer streams: the count below watches the file the answer is read from (in queue mode, the
      // binary store's copy), so it would see a descriptor left open.
      expect(openWhileReading, 'descriptors on the answered file while it streams').to.be.above(0);
      await eventually(() => openDescriptors(path, mode.binaryDirectory) === 0, 1000);
      expect(openDescriptors(path, mode.binaryDirectory)).to.equal(0);
    });

    if (!mode.queued) it('holds no descriptor after several callers hung up, nor after one that read it all', async () => {
      for (let i = 0; i < 5; i += 1) {
        expect(await readSomeThenHangUp(port, () => openDescriptors(path, mode.binaryDirectory)), `caller ${i}`).to.be.above(0);
      }
      truncateSync(path, 64 * 1024);
      const res = await request(`http://127.0.0.1:${port}`).post(`${BASE}/webhook/file`).buffer(true).parse(binaryParser).expect(200);
      expect((res.body as Buffer).length).to.equal(64 * 1024);
      await eventually(() => openDescriptors(path, mode.binaryDirectory) === 0, 1000);
    });

    if (mode.queued) it('removes the binary store\'s copy once answered, whether the caller hung up or read it all: each call\'s copy was in the store first', async () => {
      const directory = mode.binaryDirectory as string;
      // A copy lands in the store under its reference (a rename from its .partial name): each one is seen arriving.
      const copies = new Set<string>();
      const watcher = watch(directory, (_event, name) => { if (name !== null && /^[0-9a-f-]{36}$/.test(name)) copies.add(name); });
      try {
        // Connected first: a call refused 503 while the queue connects would answer these callers without a file.
        await mode.settled();
        for (let i = 0; i < 3; i += 1) await readSomeThenHangUp(port);
        // Over the 1 MiB a job carries inline (inlineBinaryBytes), so that this answer too goes through the store.
        truncateSync(path, 2 * 1024 * 1024);
        const res = await request(`http://127.0.0.1:${port}`).post(`${BASE}/webhook/file`).buffer(true).parse(binaryParser).expect(200);
        expect((res.body as Buffer).length).to.equal(2 * 1024 * 1024);
        await eventually(() => filesUnder(directory).length === 0, 2000);
        expect(filesUnder(directory)).to.deep.equal([]);
        await eventually(() => copies.size >= 4, 2000);
      } finally {
        watcher.close();
      }
      expect(copies.size, 'copies that were in the store, one per call').to.equal(4);
    });

    // In queue mode the worker reads the file to send it back, so an unreadable one is the run's failure (500), not a cut.
        if (!mode.queued) it('cuts the connection when the file cannot be read, and serves the next call', async () => {
      answered = join(temp.path, 'gone.bin');
      const error = await request(`http://127.0.0.1:${port}`).post(`${BASE}/webhook/file`).then(() => undefined, (thrown: Error) => thrown);
      expect(error?.message).to.match(/socket hang up|ECONNRESET|aborted/);
      answered = path;
      truncateSync(path, 10);
      await request(`http://127.0.0.1:${port}`).post(`${BASE}/webhook/file`).expect(200);
    });
  });
}
