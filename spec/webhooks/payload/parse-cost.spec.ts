import { fork, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookLimitsOptions } from '../../../lib/index.js';
import { send, sendTo, type RawResponse } from '../../support/raw-http.js';
import { workflow } from '../../support/workflows.js';

const MIB = 1024 * 1024;

/** One element of `count` attributes: the XML that costs the parser most per byte. */
function manyAttributes(count: number): Buffer {
  const parts = ['<r'];
  for (let index = 0; index < count; index += 1) parts.push(` a${index}="x"`);
  parts.push('/>');
  return Buffer.from(parts.join(''));
}

/** An object of short keys: the JSON that costs JSON.parse most per byte. */
function manyKeys(bytes: number): Buffer {
  const parts = ['{'];
  let size = 1;
  for (let index = 0; size < bytes; index += 1) {
    const entry = `"k${index}":1,`;
    parts.push(entry);
    size += entry.length;
  }
  parts.push('"end":1}');
  return Buffer.from(parts.join(''));
}

/**
 * Posts `body` with its Content-Length; `sent` settles once the last byte is written or the server has answered (an
 * early 413 lets the client stop), `answered` with the answer, and `answeredBeforeSent` says whether the answer came
 * while the body was still being written: the server refused it without reading it (more than the loopback buffers
 * hold), so it never read, let alone parsed, it.
 */
function post(port: number, body: Buffer, contentType: string): { sent: Promise<void>; answered: Promise<RawResponse>; answeredBeforeSent: () => boolean } {
  let sent: () => void = () => undefined;
  let written = false;
  let answeredEarly = false;
  const sentPromise = new Promise<void>((resolve) => { sent = resolve; });
  const answered = new Promise<RawResponse>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/webhook/in', headers: { 'content-type': contentType, 'content-length': String(body.length) } }, (res) => {
      answeredEarly = !written;
      sent();
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: JSON.parse(text || '{}') as unknown });
      });
    });
    req.on('error', (error) => { sent(); reject(error); });
    req.end(body, () => { written = true; sent(); });
  });
  return { sent: sentPromise, answered, answeredBeforeSent: () => answeredEarly };
}

describe('a big JSON or XML body and the other calls of the process', () => {
  describe('a server in a process of its own, with the default limits', () => {
    let child: ChildProcess;
    let port: number;

    before(async function () {
      this.timeout(20_000);
      child = fork(fileURLToPath(new URL('../../support/payload/body-server.ts', import.meta.url)), [], {
        execArgv: ['--import', 'tsx', '--conditions=workflow-webhooks-source'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      port = await new Promise<number>((resolve) => child.once('message', (message: { port: number }) => resolve(message.port)));
    });
    after(() => { child?.kill('SIGKILL'); });

    // Without the XML limit this body (under the 16 MiB bodySize) is read and parsed on the server's event loop:
    // 9 to 12 s during which no other call is answered (bench/parse-cost.ts measures it). With it, the server refuses
    // the body from its Content-Length before reading it, so the loop is never held: no clock is needed to tell.
    it('refuses an XML body of 1.2 million attributes with 413 LIMIT_XML_SIZE before reading it, and answers a second caller', async function () {
      this.timeout(60_000);
      const body = manyAttributes(1_200_000);
      expect(body.length).to.be.above(13 * MIB).and.below(16 * MIB);
      const first = post(port, body, 'application/xml');
      await first.sent;
      const second = await sendTo(port, { path: '/webhook/in', headers: { 'content-type': 'application/json' }, chunks: ['{"second":true}'] });
      expect(second.status).to.equal(200);
      const refused = await first.answered;
      expect([refused.status, (refused.body as { code?: string }).code]).to.deep.equal([413, 'LIMIT_XML_SIZE']);
      expect(first.answeredBeforeSent(), 'the refusal came while the body was still being sent').to.equal(true);
    });
  });

  describe('the limits of each kind', () => {
    async function answer(limits: WebhookLimitsOptions, contentType: string, body: Buffer, chunked = false): Promise<[number, string | undefined]> {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST' }));
      const middleware = createWebhookMiddleware(registry, () => Promise.resolve({ items: [] }), { limits });
      const headers: Record<string, string> = { 'content-type': contentType };
      if (!chunked) headers['content-length'] = String(body.length);
      const res = await send((req, res) => middleware(req, res, () => undefined), { path: '/webhook/in', headers, chunks: [body] });
      return [res.status, (res.body as { code?: string } | undefined)?.code];
    }

    it('takes an XML body up to limits.xmlSize (1 MiB) and refuses a byte more, with or without Content-Length', async function () {
      this.timeout(20_000);
      const fits = Buffer.concat([Buffer.from('<r>'), Buffer.alloc(MIB - 7, 'x'), Buffer.from('</r>')]);
      expect(fits.length).to.equal(MIB);
      expect(await answer({}, 'application/xml', fits)).to.deep.equal([200, undefined]);
      const over = Buffer.concat([Buffer.from('<r>'), Buffer.alloc(MIB - 6, 'x'), Buffer.from('</r>')]);
      expect(await answer({}, 'application/xml', over)).to.deep.equal([413, 'LIMIT_XML_SIZE']);
      expect(await answer({}, 'text/xml', over, true)).to.deep.equal([413, 'LIMIT_XML_SIZE']);
    });

    it('refuses a JSON body over limits.jsonSize (4 MiB) with 413 LIMIT_JSON_SIZE, while text is held to bodySize', async function () {
      this.timeout(20_000);
      const body = manyKeys(5 * MIB);
      expect(await answer({}, 'application/json', body)).to.deep.equal([413, 'LIMIT_JSON_SIZE']);
      expect(await answer({}, 'application/json', body, true)).to.deep.equal([413, 'LIMIT_JSON_SIZE']);
      expect(await answer({ jsonSize: '6mb' }, 'application/json', body)).to.deep.equal([200, undefined]);
      expect(await answer({}, 'text/plain', body)).to.deep.equal([200, undefined]);
    });

    it('names bodySize when it is the lower limit', async () => {
      const body = Buffer.from(`<r>${'x'.repeat(2000)}</r>`);
      expect(await answer({ bodySize: 1000 }, 'application/xml', body)).to.deep.equal([413, 'LIMIT_BODY_SIZE']);
      expect(await answer({ bodySize: 1000, jsonSize: 500 }, 'application/json', Buffer.from(JSON.stringify({ pad: 'x'.repeat(600) })))).to.deep.equal([413, 'LIMIT_JSON_SIZE']);
    });
  });
});
