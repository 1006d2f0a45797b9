import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { existsSync, rmSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { listen, type RawResponse } from '../../support/raw-http.js';
import { eventually, filesUnder, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

const URL_PATH = `${BASE}/webhook/upload`;

const part = (name: string, fileName: string): string =>
  `--B\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`;

/**
 * Sends `first`, waits for `between()`, then sends `rest`; resolves with the answer once the connection is closed.
 * The server may answer before it has read the whole body, so the client's own writes can still fail with EPIPE or
 * ECONNRESET after the answer: those are expected and ignored; only an error before the answer fails the call. The
 * socket gets a listener of its own because Node's keep-alive hand-back leaves it without one for a tick, and an error
 * in that tick would be thrown.
 */
async function sendInTwo(port: number, first: Buffer, rest: Buffer, between: () => Promise<void>): Promise<RawResponse> {
  const req = httpRequest({
    host: '127.0.0.1', port, method: 'POST', path: URL_PATH,
    headers: { 'content-type': 'multipart/form-data; boundary=B', 'content-length': String(first.length + rest.length) },
  });
  let answer: RawResponse | undefined;
  const closed = new Promise<RawResponse>((resolve, reject) => {
    req.on('socket', (socket) => socket.on('error', () => undefined));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: unknown;
        try { body = JSON.parse(text); } catch { body = undefined; }
        answer = { status: res.statusCode ?? 0, headers: res.headers, text, body };
      });
    });
    req.on('error', (error) => { if (answer === undefined) reject(error); });
    req.on('close', () => {
      if (answer === undefined) reject(new Error('the connection closed before a whole answer arrived'));
      else resolve(answer);
    });
  });
  req.write(first);
  await between();
  req.end(rest);
  return closed;
}

describe('a temp file write that fails part-way (file size limit of the process)', function limited() {
  this.timeout(30_000);
  let temp: TempDir;
  beforeEach(() => { temp = makeTempDir(); });
  afterEach(() => { temp?.remove(); });

  it('answers 500 INTERNAL_ERROR and removes every temp file of the call, the complete ones too', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/upload-server.ts', import.meta.url));
    // 2048 blocks: 1 or 2 MiB as the shell counts them; Node ignores SIGXFSZ, so the write fails with EFBIG.
    const child = spawn('sh', ['-c', 'ulimit -f 2048 && exec "$@"', 'sh',
      process.execPath, '--conditions=workflow-webhooks-source', '--import', 'tsx', fixture, temp.path], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`the upload server exited with ${code}`)));
      });
      const { port } = JSON.parse(line) as { port: number };
      const first = Buffer.from(`${part('small', 'small.bin')}${'s'.repeat(64 * 1024)}\r\n${part('large', 'large.bin')}`);
      const rest = Buffer.concat([Buffer.alloc(16 * 1024 * 1024, 1), Buffer.from('\r\n--B--\r\n')]);
      const res = await sendInTwo(port, first, rest, () => Promise.resolve());
      expect([res.status, (res.body as { code?: string }).code]).to.deep.equal([500, 'INTERNAL_ERROR']);
      await eventually(() => temp.files().length === 0, 2000);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    }
  });
});

for (const host of HOSTS) {
  describe(`temp files of uploads in ${host.name}`, () => {
    let temp: TempDir;
    let runs: WebhookRun[];
    let seen: { path: string; dirMode: number; fileMode: number }[];

    async function appWith(tempDir = temp.path) {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'upload', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData' }));
      return host.build(createWebhookMiddleware(registry, async (run) => {
        runs.push(run);
        for (const binary of Object.values(run.items[0]?.binary ?? {})) {
          if (binary.path === undefined) continue;
          if (!existsSync(binary.path)) {
            seen.push({ path: binary.path, dirMode: -1, fileMode: -1 });
            continue;
          }
          seen.push({ path: binary.path, dirMode: statSync(dirname(binary.path)).mode & 0o777, fileMode: statSync(binary.path).mode & 0o777 });
        }
        return { items: [] };
      }, { uploads: { tempDir, memoryThreshold: 0 } }));
    }

    beforeEach(() => { temp = makeTempDir(); runs = []; seen = []; });
    afterEach(() => { temp?.remove(); });

    it('writes a call\'s files into one private directory (0700) of uploads.tempDir, each file 0600, and removes it', async () => {
      const app = await appWith();
      await request(app).post(URL_PATH).attach('a', Buffer.from('first'), 'a.txt').attach('b', Buffer.from('second'), 'b.txt').expect(200);
      expect(seen).to.have.length(2);
      const dir = dirname(seen[0]?.path as string);
      expect(dirname(dir)).to.equal(temp.path);
      expect(basename(dir)).to.match(/^workflow-webhooks-/);
      expect(dirname(seen[1]?.path as string)).to.equal(dir);
      expect(seen.map((file) => [file.dirMode, file.fileMode])).to.deep.equal([[0o700, 0o600], [0o700, 0o600]]);
      await eventually(() => temp.files().length === 0);
    });

    it('gives each call its own private directory, also for a raw binary body', async () => {
      const app = await appWith();
      await request(app).post(URL_PATH).set('content-type', 'application/pdf').send(Buffer.from('%PDF one')).expect(200);
      await request(app).post(URL_PATH).set('content-type', 'application/pdf').send(Buffer.from('%PDF two')).expect(200);
      expect(seen.map((file) => [file.dirMode, file.fileMode])).to.deep.equal([[0o700, 0o600], [0o700, 0o600]]);
      expect(dirname(seen[0]?.path as string)).to.not.equal(dirname(seen[1]?.path as string));
      await eventually(() => temp.files().length === 0);
    });

    it('answers 500 INTERNAL_ERROR, never 200, when uploads.tempDir is gone and no file can be written', async () => {
      const app = await appWith();
      rmSync(temp.path, { recursive: true });
      for (const send of [
        () => request(app).post(URL_PATH).set('content-type', 'application/pdf').send(Buffer.from('%PDF')),
        () => request(app).post(URL_PATH).attach('doc', Buffer.from('text'), 'doc.txt'),
      ]) {
        const res = await send().expect(500);
        expect(res.body.code).to.equal('INTERNAL_ERROR');
      }
      expect(runs).to.have.length(0);
    });

    // Here the test removes the directory itself, so whether the call's written files are removed cannot be seen:
    // the file size limit spec above shows that (a write failing after a complete file).
    it('answers 500 INTERNAL_ERROR when a temp file fails to open after others were written, and starts no run', async () => {
      const { port, close } = await listen(await appWith());
      try {
        const first = Buffer.concat([Buffer.from(part('a', 'a.bin')), Buffer.alloc(256 * 1024, 1)]);
        // The second file is small: the body ends while its file is still opening, so the error reaches end().
        const rest = Buffer.from(`\r\n${part('b', 'b.bin')}tiny\r\n--B--\r\n`);
        const res = await sendInTwo(port, first, rest, async () => {
          await eventually(() => filesUnder(temp.path).some((path) => statSync(path).size > 0), 2000);
          rmSync(temp.path, { recursive: true });
        });
        expect([res.status, (res.body as { code?: string }).code]).to.deep.equal([500, 'INTERNAL_ERROR']);
        expect(runs).to.have.length(0);
      } finally {
        await close();
      }
    });
  });
}
