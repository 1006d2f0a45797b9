import { existsSync, readFileSync, rmSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  type BinaryData,
  type WebhookLimitsOptions,
  type WebhookNodeOptions,
  type WebhookRun,
} from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { send } from '../../support/raw-http.js';
import { eventually, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

const URL_PATH = `${BASE}/webhook/upload`;

function multipartBody(boundary: string, parts: string[]): string {
  return `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`;
}

for (const mode of runModes('multipart')) for (const host of hostsOf(mode, HOSTS)) {
  describe(`multipart/form-data in ${host.name}${mode.suffix}`, () => {
    mode.hooks();
    let temp: TempDir;
    let runs: WebhookRun[];
    let seenOnDisk: Record<string, boolean>;

    async function appWith(options: WebhookNodeOptions = {}, limits: WebhookLimitsOptions = {}, memoryThreshold = 1024 * 1024) {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'upload', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData', options }));
      return host.build(createWebhookMiddleware(registry, mode.executor(async (run) => {
        runs.push(run);
        for (const [name, binary] of Object.entries(run.items[0]?.binary ?? {})) {
          seenOnDisk[name] = binary.path !== undefined && existsSync(binary.path);
        }
        return { items: [] };
      }), { limits, uploads: { tempDir: temp.path, memoryThreshold } }));
    }

    beforeEach(() => { temp = makeTempDir(); runs = []; seenOnDisk = {}; });
    afterEach(() => { temp?.remove(); });

    const binaryOf = (index = 0): Record<string, BinaryData> => runs[index]?.items[0]?.binary ?? {};

    it('puts text fields into body and each file into binary with name, type, size and content', async () => {
      const app = await appWith();
      await request(app).post(URL_PATH)
        .field('title', 'Report').field('tag', 'a').field('tag', 'b')
        .attach('document', Buffer.from('%PDF-1.7 tiny'), { filename: 'report.pdf', contentType: 'application/pdf' })
        .expect(200);
      expect(runs[0]?.items[0]?.json.body).to.deep.equal({ title: 'Report', tag: ['a', 'b'] });
      const file = binaryOf().document;
      expect(file).to.include({ fileName: 'report.pdf', mimeType: 'application/pdf', bytes: 13, fileSize: '13 B', fileExtension: 'pdf', fileType: 'pdf' });
      expect(file?.data?.toString()).to.equal('%PDF-1.7 tiny');
    });

    it('gives a file that arrived in many reads as one Buffer with every byte, listed like any other field', async () => {
      const app = await appWith();
      const bytes = Buffer.alloc(300 * 1024);
      for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 7919) % 251;
      await request(app).post(URL_PATH).attach('scan', bytes, { filename: 'scan.bin', contentType: 'application/octet-stream' }).expect(200);
      const file = binaryOf().scan;
      expect(Object.keys(file ?? {})).to.include('data');
      expect(file?.bytes).to.equal(bytes.length);
      expect(Buffer.isBuffer(file?.data), 'one Buffer').to.equal(true);
      expect(Buffer.compare(file?.data ?? Buffer.alloc(0), bytes)).to.equal(0);
    });

    it('names files after their fields: [] removed, several on one field numbered', async () => {
      const app = await appWith();
      await request(app).post(URL_PATH)
        .attach('photos[]', Buffer.from('1'), 'a.jpg').attach('photos[]', Buffer.from('2'), 'b.jpg')
        .attach('avatar[]', Buffer.from('3'), 'c.png')
        .expect(200);
      expect(Object.keys(binaryOf())).to.deep.equal(['photos0', 'photos1', 'avatar']);
      expect(binaryOf().photos1?.fileName).to.equal('b.jpg');
    });

    it('numbers files in the order they were sent, not the order they finished streaming', async () => {
      // The large first file goes to disk and finishes after the small ones, which stay in memory.
      const app = await appWith({}, {}, 64 * 1024);
      await request(app).post(URL_PATH)
        .attach('photos[]', Buffer.alloc(2 * 1024 * 1024, 1), 'large.jpg')
        .attach('photos[]', Buffer.from('2'), 'small.jpg')
        .attach('photos[]', Buffer.from('3'), 'tiny.jpg')
        .expect(200);
      expect(Object.entries(binaryOf()).map(([name, file]) => [name, file.fileName])).to.deep.equal([
        ['photos0', 'large.jpg'], ['photos1', 'small.jpg'], ['photos2', 'tiny.jpg'],
      ]);
      expect(binaryOf().photos0?.path).to.be.a('string');
    });

    it('numbers every file across fields when binaryPropertyName is set', async () => {
      const app = await appWith({ binaryPropertyName: 'data' });
      await request(app).post(URL_PATH).attach('a', Buffer.from('1'), 'a.txt').attach('b', Buffer.from('2'), 'b.txt').expect(200);
      expect(Object.keys(binaryOf())).to.deep.equal(['data0', 'data1']);
    });

    it('drops a blank file input (no file name, no bytes)', async () => {
      const app = await appWith();
      const body = multipartBody('XyZ', [
        'Content-Disposition: form-data; name="note"\r\n\r\nhello',
        'Content-Disposition: form-data; name="attachment"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n',
      ]);
      const res = await send(app, { path: URL_PATH, headers: { 'content-type': 'multipart/form-data; boundary=XyZ' }, chunks: [body] });
      expect(res.status).to.equal(200);
      expect(runs[0]?.items[0]).to.deep.equal({ json: runs[0]?.items[0]?.json });
      expect(runs[0]?.items[0]?.json.body).to.deep.equal({ note: 'hello' });
    });

    // About the web instance's disk while a run goes: in queue mode the run has the job's copy (spec/queue/binary.spec.ts).
        if (!mode.queued) it('streams files past the memory threshold to the temp directory and removes them after the call', async () => {
      const app = await appWith({}, {}, 1024);
      const big = Buffer.alloc(300 * 1024, 7);
      await request(app).post(URL_PATH).attach('big', big, 'big.bin').attach('small', Buffer.from('s'), 's.txt').expect(200);
      const file = binaryOf().big;
      expect(file?.data).to.equal(undefined);
      expect(file?.path).to.be.a('string');
      expect(file?.bytes).to.equal(big.length);
      expect(seenOnDisk.big).to.equal(true);
      await eventually(() => temp.files().length === 0);
    });

    // A worker keeps a file by copying its data: the web instance's temp file is not on its machine.
        if (!mode.queued) it('lets the executor keep a file by moving it before it resolves', async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'upload', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData' }));
      const kept = `${temp.path}-kept`;
      const { rename } = await import('node:fs/promises');
      const app = host.build(createWebhookMiddleware(registry, mode.executor(async (run) => {
        await rename(run.items[0]?.binary?.doc?.path as string, kept);
        return { items: [] };
      }), { uploads: { tempDir: temp.path, memoryThreshold: 0 } }));
      await request(app).post(URL_PATH).attach('doc', Buffer.from('keep me'), 'k.txt').expect(200);
      expect(readFileSync(kept, 'utf8')).to.equal('keep me');
      // The call's private directory goes with the cleanup, which runs once the workflow has settled.
      await eventually(() => temp.files().length === 0);
      rmSync(kept);
    });

    for (const [label, limits, build, code] of [
      ['a file larger than limits.fileSize', { fileSize: 1000 }, (r: request.Test) => r.attach('f', Buffer.alloc(5000), 'f.bin'), 'LIMIT_FILE_SIZE'],
      ['files larger than limits.totalFileSize together', { totalFileSize: 6000, fileSize: 5000 }, (r: request.Test) => r.attach('a', Buffer.alloc(4000), 'a').attach('b', Buffer.alloc(4000), 'b'), 'LIMIT_TOTAL_FILE_SIZE'],
      ['more files than limits.files', { files: 2 }, (r: request.Test) => r.attach('a', Buffer.alloc(10), 'a').attach('b', Buffer.alloc(10), 'b').attach('c', Buffer.alloc(10), 'c'), 'LIMIT_FILE_COUNT'],
      ['more fields than limits.fields', { fields: 2 }, (r: request.Test) => r.field('a', '1').field('b', '2').field('c', '3'), 'LIMIT_FIELD_COUNT'],
      ['more parts than limits.parts', { parts: 2 }, (r: request.Test) => r.field('a', '1').attach('b', Buffer.alloc(10), 'b').field('c', '3'), 'LIMIT_PART_COUNT'],
      ['a field longer than limits.fieldSize', { fieldSize: 10 }, (r: request.Test) => r.field('a', 'x'.repeat(50)), 'LIMIT_FIELD_SIZE'],
      ['a field name longer than limits.fieldNameSize', { fieldNameSize: 5 }, (r: request.Test) => r.attach('much-too-long', Buffer.alloc(10), 'x'), 'LIMIT_FIELD_NAME_SIZE'],
    ] as const) {
      it(`answers 413 naming the limit for ${label}, without calling the workflow or leaving files`, async () => {
        const app = await appWith({}, limits, 0);
        const res = await build(request(app).post(URL_PATH)).expect(413);
        expect(res.body.code).to.equal(code);
        expect(res.body.hint).to.match(/limits\./);
        expect(runs).to.have.length(0);
        await eventually(() => temp.files().length === 0);
      });
    }

    for (const [label, limits, build] of [
      ['exactly limits.files files', { files: 2 }, (r: request.Test) => r.attach('a', Buffer.alloc(10), 'a').attach('b', Buffer.alloc(10), 'b')],
      ['exactly limits.fields fields', { fields: 2 }, (r: request.Test) => r.field('a', '1').field('b', '2')],
      ['exactly limits.parts parts', { parts: 2 }, (r: request.Test) => r.field('a', '1').attach('b', Buffer.alloc(10), 'b')],
      ['a file of exactly limits.fileSize bytes', { fileSize: 1000 }, (r: request.Test) => r.attach('f', Buffer.alloc(1000), 'f.bin')],
      ['a field of exactly limits.fieldSize bytes', { fieldSize: 10 }, (r: request.Test) => r.field('a', 'x'.repeat(10))],
    ] as const) {
      it(`accepts a form with ${label}`, async () => {
        const app = await appWith({}, limits, 0);
        await build(request(app).post(URL_PATH)).expect(200);
        expect(runs).to.have.length(1);
      });
    }

    it('answers 413 LIMIT_PART_COUNT for more parts than limits.parts even when they are parts it ignores', async () => {
      const app = await appWith({}, { parts: 2 }, 0);
      const nameless = multipartBody('XyZ', ['Content-Type: text/plain\r\n\r\na', 'Content-Type: text/plain\r\n\r\nb', 'Content-Type: text/plain\r\n\r\nc']);
      const res = await send(app, { path: URL_PATH, headers: { 'content-type': 'multipart/form-data; boundary=XyZ' }, chunks: [nameless] });
      expect([res.status, (res.body as { code?: string }).code]).to.deep.equal([413, 'LIMIT_PART_COUNT']);
      const two = multipartBody('XyZ', ['Content-Type: text/plain\r\n\r\na', 'Content-Type: text/plain\r\n\r\nb']);
      const accepted = await send(app, { path: URL_PATH, headers: { 'content-type': 'multipart/form-data; boundary=XyZ' }, chunks: [two] });
      expect(accepted.status).to.equal(200);
      expect(runs).to.have.length(1);
    });

    for (const [label, contentType, body] of [
      ['a missing boundary', 'multipart/form-data', 'whatever'],
      ['a wrong boundary', 'multipart/form-data; boundary=other', multipartBody('XyZ', ['Content-Disposition: form-data; name="a"\r\n\r\n1'])],
      ['a truncated body', 'multipart/form-data; boundary=XyZ', '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="f.txt"\r\n\r\npartial data'],
      ['a malformed part header', 'multipart/form-data; boundary=XyZ', `--XyZ\r\n${'X'.repeat(17000)}\r\n\r\nv\r\n--XyZ--\r\n`],
    ] as const) {
      it(`answers 400 for ${label}`, async () => {
        const app = await appWith({}, {}, 0);
        const res = await send(app, { path: URL_PATH, headers: { 'content-type': contentType }, chunks: [body] });
        expect([res.status, (res.body as { code?: string }).code]).to.deep.equal([400, 'BODY_INVALID_MULTIPART']);
        expect(runs).to.have.length(0);
        await eventually(() => temp.files().length === 0);
      });
    }

    it('stores prototype-named fields and files as plain keys', async () => {
      const app = await appWith();
      await request(app).post(URL_PATH).field('__proto__', 'x').field('constructor[prototype][polluted]', 'y')
        .attach('__proto__', Buffer.from('z'), 'z.txt').expect(200);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      const json = runs[0]?.items[0]?.json as { body: Record<string, unknown> };
      expect(Object.keys(json.body)).to.deep.equal(['__proto__', 'constructor[prototype][polluted]']);
      expect(Object.getPrototypeOf(json.body)).to.equal(Object.prototype);
      expect(Object.keys(binaryOf())).to.deep.equal(['__proto__']);
    });
  });
}
