import { existsSync, readdirSync, readlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { listen } from '../../support/raw-http.js';
import { eventually, makeTempDir, type TempDir } from '../../support/temp-dir.js';
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

/** Asks for the file answer, reads its first bytes, then hangs up. */
function readSomeThenHangUp(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: `${BASE}/webhook/file` }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => { if (error.code !== 'ECONNRESET') reject(error); });
    req.end();
  });
}

for (const mode of runModes('file answer')) for (const host of hostsOf(mode, HOSTS)) {
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

    it('closes the file at once when the caller hangs up mid-way', async () => {
      await readSomeThenHangUp(port);
      await eventually(() => openDescriptors(path, mode.binaryDirectory) === 0, 1000);
    });

    it('holds no descriptor after several callers hung up, nor after one that read it all', async () => {
      for (let i = 0; i < 5; i += 1) await readSomeThenHangUp(port);
      truncateSync(path, 64 * 1024);
      const res = await request(`http://127.0.0.1:${port}`).post(`${BASE}/webhook/file`).buffer(true).parse(binaryParser).expect(200);
      expect((res.body as Buffer).length).to.equal(64 * 1024);
      await eventually(() => openDescriptors(path, mode.binaryDirectory) === 0, 1000);
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
