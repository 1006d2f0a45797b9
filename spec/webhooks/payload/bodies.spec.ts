import { existsSync } from 'node:fs';
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  type WebhookLimitsOptions,
  type WebhookNodeOptions,
  type WebhookRun,
} from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { send } from '../../support/raw-http.js';
import { eventually, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

const URL_PATH = `${BASE}/webhook/in`;

for (const mode of runModes('bodies')) for (const host of hostsOf(mode, HOSTS)) {
  describe(`form, text, XML, binary and compressed bodies in ${host.name}${mode.suffix}`, () => {
    mode.hooks();
    let temp: TempDir;
    let runs: WebhookRun[];
    let onDisk: boolean;

    async function appWith(options: WebhookNodeOptions = {}, limits: WebhookLimitsOptions = {}, memoryThreshold = 1024 * 1024) {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData', options }));
      return host.build(createWebhookMiddleware(registry, mode.executor(async (run) => {
        runs.push(run);
        const path = run.items[0]?.binary?.data?.path;
        onDisk = path !== undefined && existsSync(path);
        return { items: [] };
      }), { limits, uploads: { tempDir: temp.path, memoryThreshold } }));
    }
    const item = () => runs[0]?.items[0];

    beforeEach(() => { temp = makeTempDir(); runs = []; onDisk = false; });
    afterEach(() => { temp?.remove(); });

    describe('application/x-www-form-urlencoded', () => {
      it('gives an object with repeated keys as arrays and bracketed keys kept flat', async () => {
        const app = await appWith();
        await request(app).post(URL_PATH).type('form').send('name=Ada+Lovelace&tag=a&tag=b&a[b]=1&empty=&flag').expect(200);
        expect(item()?.json.body).to.deep.equal({ name: 'Ada Lovelace', tag: ['a', 'b'], 'a[b]': '1', empty: '', flag: '' });
      });

      it('keeps invalid percent-encoding as written and prototype keys as plain keys', async () => {
        const app = await appWith();
        await request(app).post(URL_PATH).type('form').send('bad=%E0%A4%A&ok=%41&__proto__[x]=1&__proto__=2&constructor[prototype][y]=3').expect(200);
        const body = item()?.json.body as Record<string, unknown>;
        expect(body.bad).to.equal('%E0%A4%A');
        expect(body.ok).to.equal('A');
        expect(Object.keys(body)).to.deep.equal(['bad', 'ok', '__proto__[x]', '__proto__', 'constructor[prototype][y]']);
        expect(Object.getPrototypeOf(body)).to.equal(Object.prototype);
        expect(({} as Record<string, unknown>).x).to.equal(undefined);
      });

      it('answers 413 past limits.fields', async () => {
        const app = await appWith({}, { fields: 3 });
        const res = await request(app).post(URL_PATH).type('form').send('a=1&b=2&c=3&d=4').expect(413);
        expect(res.body.code).to.equal('LIMIT_FIELD_COUNT');
      });

      it('has header parameters in headers, lower-cased', async () => {
        const app = await appWith();
        await request(app).post(URL_PATH).set('X-Customer-Id', '42').set('X-Empty', '').expect(200);
        expect(item()?.json.headers).to.include({ 'x-customer-id': '42', 'x-empty': '' });
      });
    });

    it('gives text/plain bodies as a string', async () => {
      const app = await appWith();
      await request(app).post(URL_PATH).set('content-type', 'text/plain; charset=utf-8').send('just text\nline 2').expect(200);
      expect(item()?.json.body).to.equal('just text\nline 2');
    });

    describe('XML', () => {
      for (const type of ['application/xml', 'text/xml', 'application/atom+xml']) {
        it(`parses ${type} with lower-cased tags and attributes under $`, async () => {
          const app = await appWith();
          await request(app).post(URL_PATH).set('content-type', type)
            .send('<?xml version="1.0"?><Order id="7"><Item> Tea </Item><Item>Milk</Item><Total>3</Total></Order>').expect(200);
          expect(item()?.json.body).to.deep.equal({ order: { $: { id: '7' }, item: ['Tea', 'Milk'], total: '3' } });
        });
      }

      it('puts the text of an element with attributes under _ and collapses runs of white space, as the platform does', async () => {
        const app = await appWith();
        await request(app).post(URL_PATH).set('content-type', 'application/xml')
          .send('<Note lang="en">  Call   back\n\t before noon </Note>').expect(200);
        expect(item()?.json.body).to.deep.equal({ note: { $: { lang: 'en' }, _: 'Call back before noon' } });
      });

      it('answers 400 with the position for malformed XML', async () => {
        const app = await appWith();
        const res = await request(app).post(URL_PATH).set('content-type', 'application/xml').send('<a><b></a>').expect(400);
        expect(res.body.code).to.equal('BODY_INVALID_XML');
        expect(res.body.hint).to.match(/line 1/);
      });

      it('refuses a "billion laughs" document (entities defined by other entities) 400 BODY_INVALID_XML, and runs nothing', async () => {
        const app = await appWith();
        const laughs = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' + Array.from({ length: 9 }, (_, i) =>
          `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('\n') + ']><lolz>&lol9;</lolz>';
        const res = await request(app).post(URL_PATH).set('content-type', 'application/xml').send(laughs).expect(400);
        expect(res.body).to.include({ code: 'BODY_INVALID_XML' });
        expect(res.body.hint).to.match(/entity "lol1" is defined with another entity/);
        const quoted = `<!DOCTYPE l [<!ENTITY a 'x'><!ENTITY b 'say &a;'>]><l>&b;</l>`;
        expect((await request(app).post(URL_PATH).set('content-type', 'application/xml').send(quoted).expect(400)).body.code).to.equal('BODY_INVALID_XML');
        expect(runs).to.have.length(0);
      });

      it('expands an entity defined with plain text, and refuses expansion past its bound', async () => {
        const app = await appWith();
        await request(app).post(URL_PATH).set('content-type', 'application/xml')
          .send('<!DOCTYPE note [<!ENTITY who "the team">]><note>Hello &who; &amp; friends</note>').expect(200);
        expect(item()?.json.body).to.deep.equal({ note: 'Hello the team & friends' });
        await request(app).post(URL_PATH).set('content-type', 'application/xml')
          .send('<!DOCTYPE note [<!ENTITY who "me">]><note><![CDATA[<!ENTITY b "&who;">]]></note>').expect(200);
        const wide = `<!DOCTYPE l [<!ENTITY a "${'x'.repeat(9000)}">]><l>${'&a;'.repeat(200)}</l>`;
        const res = await request(app).post(URL_PATH).set('content-type', 'application/xml').send(wide).expect(400);
        expect(res.body.code).to.equal('BODY_INVALID_XML');
        expect(runs).to.have.length(2);
      });
    });

    describe('any other content type', () => {
      it('keeps the whole body as binary data with the file name of Content-Disposition', async () => {
        const app = await appWith();
        const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
        await request(app).post(URL_PATH).set('content-type', 'image/png').set('content-disposition', 'attachment; filename="../../etc/logo.png"').send(png).expect(200);
        expect(item()?.json.body).to.deep.equal({});
        expect(item()?.binary?.data).to.deep.include({ fileName: 'logo.png', mimeType: 'image/png', bytes: 7, fileSize: '7 B', fileExtension: 'png', fileType: 'image' });
        expect([...(item()?.binary?.data?.data ?? [])]).to.deep.equal([...png]);
      });

      it('takes application/octet-stream for a body without content type, and the name from binaryPropertyName', async () => {
        const app = await appWith({ binaryPropertyName: 'upload' });
        const res = await send(app, { path: URL_PATH, headers: { 'content-length': '5' }, chunks: ['hello'] });
        expect(res.status).to.equal(200);
        expect(item()?.binary?.upload).to.deep.include({ mimeType: 'application/octet-stream', bytes: 5, fileSize: '5 B', fileExtension: 'bin' });
      });

      it('names a body sent without a file name with a new UUID, and gives its extension from the type', async () => {
        const app = await appWith();
        await request(app).post(URL_PATH).set('content-type', 'application/pdf').send(Buffer.from('%PDF-1.7')).expect(200);
        const binary = item()?.binary?.data;
        expect(binary?.fileName).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(binary).to.deep.include({ mimeType: 'application/pdf', fileExtension: 'pdf', fileType: 'pdf', bytes: 8, fileSize: '8 B' });
      });

      it('adds no binary for an empty body', async () => {
        const app = await appWith();
        await request(app).post(URL_PATH).set('content-type', 'application/pdf').send(Buffer.alloc(0)).expect(200);
        expect(item()).to.not.have.property('binary');
      });

      // About the web instance's disk while a run goes: in queue mode the run has the job's copy (spec/queue/binary.spec.ts).
            if (!mode.queued) it('streams a large body to disk and removes it after the call', async () => {
        const app = await appWith({}, {}, 1024);
        await request(app).post(URL_PATH).set('content-type', 'application/zip').send(Buffer.alloc(256 * 1024, 1)).expect(200);
        expect(onDisk).to.equal(true);
        await eventually(() => temp.files().length === 0);
      });

      it('answers 413 past limits.binarySize and leaves no file, whether announced or chunked', async () => {
        const app = await appWith({}, { binarySize: 10_000 }, 0);
        let res = await request(app).post(URL_PATH).set('content-type', 'application/zip').send(Buffer.alloc(20_000)).expect(413);
        expect(res.body.code).to.equal('LIMIT_BINARY_SIZE');
        const raw = await send(app, { path: URL_PATH, headers: { 'content-type': 'application/zip' }, chunks: Array.from({ length: 10 }, () => Buffer.alloc(3000)) });
        expect([raw.status, (raw.body as { code: string }).code]).to.deep.equal([413, 'LIMIT_BINARY_SIZE']);
        expect(runs).to.have.length(0);
        await eventually(() => temp.files().length === 0);
        res = await request(app).post(URL_PATH).set('content-type', 'application/zip').send(Buffer.alloc(100)).expect(200);
      });
    });

    describe('binaryData (node version 1)', () => {
      it('keeps a body of any type whole as one binary entry, named data, and leaves body empty', async () => {
        const app = await appWith({ binaryData: true });
        await request(app).post(URL_PATH).type('form').send('a=1&b=2').expect(200);
        expect(item()?.json.body).to.deep.equal({});
        expect(item()?.binary?.data).to.deep.include({ mimeType: 'application/x-www-form-urlencoded', bytes: 7, fileSize: '7 B' });
        expect(item()?.binary?.data?.data?.toString()).to.equal('a=1&b=2');
      });

      it('holds such a body to limits.binarySize, not limits.bodySize', async () => {
        const app = await appWith({ binaryData: true }, { bodySize: 100, binarySize: 1000 });
        await request(app).post(URL_PATH).set('content-type', 'text/plain').send('x'.repeat(500)).expect(200);
        const res = await request(app).post(URL_PATH).set('content-type', 'text/plain').send('x'.repeat(2000)).expect(413);
        expect(res.body.code).to.equal('LIMIT_BINARY_SIZE');
      });
    });

    describe('rawBody', () => {
      it('keeps the untouched bytes as binary data next to a parsed JSON body', async () => {
        const app = await appWith({ rawBody: true });
        await request(app).post(URL_PATH).set('content-type', 'application/json').send('{ "a" : 1 }').expect(200);
        expect(item()?.json.body).to.deep.equal({ a: 1 });
        expect(item()?.binary?.data?.data?.toString()).to.equal('{ "a" : 1 }');
        expect(item()?.binary?.data).to.deep.include({ mimeType: 'application/json', fileExtension: 'json', fileType: 'json', bytes: 11, fileSize: '11 B' });
        expect(item()?.binary?.data?.fileName).to.match(/^[0-9a-f-]{36}$/);
      });

      it('keeps the raw multipart bytes as data and numbers a file that would take the name', async () => {
        const app = await appWith({ rawBody: true });
        await request(app).post(URL_PATH).field('f', 'v').attach('data', Buffer.from('file'), 'x.txt').expect(200);
        expect(item()?.json.body).to.deep.equal({ f: 'v' });
        expect(Object.keys(item()?.binary ?? {}).sort()).to.deep.equal(['data', 'data0']);
        expect(item()?.binary?.data?.data?.toString()).to.match(/^--.*\r\nContent-Disposition: form-data; name="f"/);
        expect(item()?.binary?.data0?.data?.toString()).to.equal('file');
      });
    });

    describe('Content-Encoding', () => {
      const json = Buffer.from('{"compressed":true}');
      for (const [encoding, compress] of [['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync]] as const) {
        it(`inflates ${encoding} bodies`, async () => {
          const app = await appWith();
          const res = await send(app, { path: URL_PATH, headers: { 'content-type': 'application/json', 'content-encoding': encoding }, chunks: [compress(json)] });
          expect(res.status).to.equal(200);
          expect(item()?.json.body).to.deep.equal({ compressed: true });
        });
      }

      it('holds a body to a limit written as a string, "1kb" being 1024 bytes', async () => {
        const app = await appWith({}, { bodySize: '1kb' });
        const fits = JSON.stringify({ pad: 'x'.repeat(1024 - 10) });
        expect(Buffer.byteLength(fits)).to.equal(1024);
        await request(app).post(URL_PATH).set('content-type', 'application/json').send(fits).expect(200);
        const over = JSON.stringify({ pad: 'x'.repeat(1024 - 9) });
        const res = await request(app).post(URL_PATH).set('content-type', 'application/json').send(over).expect(413);
        expect(res.body.code).to.equal('LIMIT_BODY_SIZE');
      });

      it('stops inflating a zip bomb at the limit with a 413', async () => {
        const app = await appWith({}, { bodySize: 100_000 });
        const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
        expect(bomb.length).to.be.lessThan(100_000);
        const res = await send(app, { path: URL_PATH, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, chunks: [bomb] });
        expect([res.status, (res.body as { code: string }).code]).to.deep.equal([413, 'LIMIT_BODY_SIZE']);
      });

      it('answers 415 for an unknown encoding and 400 for a corrupt stream', async () => {
        const app = await appWith();
        let res = await send(app, { path: URL_PATH, headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' }, chunks: ['x'] });
        expect([res.status, (res.body as { code: string }).code]).to.deep.equal([415, 'BODY_UNSUPPORTED_ENCODING']);
        res = await send(app, { path: URL_PATH, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, chunks: ['not gzip at all'] });
        expect([res.status, (res.body as { code: string }).code]).to.deep.equal([400, 'BODY_INVALID_ENCODING']);
        expect(runs).to.have.length(0);
      });
    });
  });
}
