/**
 * The Copy-curl line of a captured test call, run as an admin runs it: through `sh -c` and the real /usr/bin/curl,
 * in a directory of the admin's files, against a listener that records what arrives. What the caller sent stays text:
 * a form field `@/etc/hostname` or `<secret.txt` is sent as those characters, not as the admin's file; a body that
 * starts with `@` too; nothing the caller wrote runs in the shell; the call goes to the middleware's own address,
 * never to the Host the caller named; a file part is a placeholder curl refuses until the admin puts a path there.
 */
import { execFile } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ListenSnapshot } from '../../lib/console/index.js';
import { curlOf } from '../../lib/console/listen/curl.js';
import { startConsoleApp, WEBHOOK_BASE, type ConsoleApp } from '../support/console-app.js';
import { consoleSession, type ConsoleSession } from '../support/console-session.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';
import { closeAll } from '../support/close-all.js';

interface Received { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }

/** A server on 127.0.0.1 that keeps every request it gets: where the curl line is pointed, as the middleware's address. */
async function recorder(): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.end('recorded');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, received };
}

/** Runs the line as a shell does, in `cwd`, with no proxy and no curl configuration of this machine. */
function runInShell(line: string, cwd: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', line], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd } }, (error, _stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stderr });
    });
  });
}

/** A call as any client may send it, Host header included. */
function sendRaw(origin: string, path: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method: 'POST', path, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function multipart(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? '' };
}

async function formOf(received: Received): Promise<FormData> {
  return new Response(received.body, { headers: { 'content-type': String(received.headers['content-type']) } }).formData();
}

const ADMIN_SECRET = 'the admin\'s own secret file';
/** With CRLF, as a browser's form sends a line break (FormData too). */
const SHELL_TRICK = "line one\r\n'; touch pwned-field; echo '";
const HEADER_TRICK = '$(touch pwned-header) `touch pwned-tick`';

describe('the Copy-curl line of a captured call, run through sh and the real curl', function () {
  this.timeout(20_000);
  let listener: Awaited<ReturnType<typeof recorder>>;
  let app: ConsoleApp;
  let page: ConsoleSession;
  let dir: TempDir;
  before(async () => {
    listener = await recorder();
    app = await startConsoleApp({ console: { webhookUrl: `http://127.0.0.1:${listener.port}${WEBHOOK_BASE}` } });
    page = await consoleSession(app);
  });
  after(() => closeAll(() => app?.close(), () => (listener === undefined ? undefined : new Promise<void>((resolve) => listener.server.close(() => resolve())))));
  beforeEach(() => {
    dir = makeTempDir();
    writeFileSync(join(dir.path, 'secret.txt'), ADMIN_SECRET);
    writeFileSync(join(dir.path, 'admin-notes.txt'), ADMIN_SECRET);
    listener.received.length = 0;
  });
  afterEach(() => dir?.remove());

  async function capturedCurl(body: Buffer, headers: Record<string, string>): Promise<string> {
    const stream = await page.events();
    try {
      const started = await page.post('/api/workflows/draft/listen', {});
      expect(started.status).to.equal(201);
      const { listen } = await started.json() as ListenSnapshot;
      const listenId = 'listenId' in listen ? listen.listenId : '';
      const status = await sendRaw(app.origin, `${WEBHOOK_BASE}/webhook-test/signup?ref=spec&q=%5B1%5D`, { host: 'attacker.example', ...headers }, body);
      expect(status).to.equal(200);
      const ended = await stream.next<ListenSnapshot>('listen', (event) => event.listen.state === 'ended' && event.listen.listenId === listenId);
      if (ended.listen.state !== 'ended' || ended.listen.run === undefined) throw new Error('no run');
      return ended.listen.run.curl;
    } finally {
      stream.close();
    }
  }

  it('sends form fields as text, runs nothing the caller wrote, goes to the middleware\'s own address, and sends only the file the admin chose', async () => {
    const form = new FormData();
    form.append('note', '@/etc/hostname');
    form.append('x', '<secret.txt');
    form.append('y', '@admin-notes.txt;type=text/html');
    form.append('memo', SHELL_TRICK);
    form.append('a=@/etc/hostname', 'a name curl would split');
    form.append("b;filename@x'y", 'an odd name curl sends as written');
    form.append('contract', new Blob([Buffer.from('%PDF the caller sent')], { type: 'application/pdf' }), 'contract.pdf');
    const { body, contentType } = await multipart(form);
    const curl = await capturedCurl(body, { 'content-type': contentType, 'x-note': HEADER_TRICK });

    // As copied: the file part is a placeholder, and curl refuses to send anything until it is filled in.
    const unfilled = await runInShell(curl, dir.path);
    expect(unfilled.code, unfilled.stderr).to.equal(26);
    expect(listener.received).to.deep.equal([]);

    // The admin puts the path of a file of theirs in its place, and runs it.
    const chosen = join(dir.path, 'contract-from-admin.pdf');
    writeFileSync(chosen, '%PDF the admin chose');
    const filled = await runInShell(curl.replace('<path to contract.pdf>', chosen), dir.path);
    expect(filled.code, filled.stderr).to.equal(0);
    expect(listener.received).to.have.length(1);
    const [sent] = listener.received as [Received];
    expect(sent.url).to.equal(`${WEBHOOK_BASE}/webhook-test/signup?ref=spec&q=%5B1%5D`);
    expect(sent.headers.host).to.equal(`127.0.0.1:${listener.port}`);
    expect(sent.headers['x-note']).to.equal(HEADER_TRICK);
    const fields = await formOf(sent);
    expect(fields.get('note')).to.equal('@/etc/hostname');
    expect(fields.get('x')).to.equal('<secret.txt');
    expect(fields.get('y')).to.equal('@admin-notes.txt;type=text/html');
    expect(fields.get('memo')).to.equal(SHELL_TRICK);
    expect(fields.get("b;filename@x'y")).to.equal('an odd name curl sends as written');
    expect([...fields.keys()].sort()).to.deep.equal(["b;filename@x'y", 'contract', 'memo', 'note', 'x', 'y']);
    const file = fields.get('contract') as File;
    expect(await file.text()).to.equal('%PDF the admin chose');
    expect(sent.body.toString('latin1')).not.to.include(ADMIN_SECRET);
    expect(readdirSync(dir.path).filter((name) => name.startsWith('pwned'))).to.deep.equal([]);

    // What the admin reads before running it.
    const address = `http://127.0.0.1:${listener.port}${WEBHOOK_BASE}/webhook-test/signup?ref=spec&q=%5B1%5D`;
    expect(curl).to.include(`curl -X POST '${address}'`).and.not.to.include('attacker.example');
    expect(curl).to.include("--form-string 'note=@/etc/hostname'").and.to.include("--form-string 'x=<secret.txt'");
    expect(curl).to.include('# Left out: the form field "a=@/etc/hostname"');
    expect(curl).to.include("-F 'contract=@<path to contract.pdf>;type=application/pdf'");
  });

  it('sends a text body that starts with @ as those characters, not as the file it names', async () => {
    const curl = await capturedCurl(Buffer.from('@secret.txt'), { 'content-type': 'text/plain' });
    const run = await runInShell(curl, dir.path);
    expect(run.code, run.stderr).to.equal(0);
    expect(listener.received).to.have.length(1);
    expect(listener.received[0]?.body.toString()).to.equal('@secret.txt');
    expect(curl).to.include("--data-raw '@secret.txt'");
  });

  it('leaves out a header whose value holds a line break, so that it can start neither a shell command nor another header', async () => {
    const curl = curlOf({
      method: 'POST', testBase: `http://127.0.0.1:${listener.port}${WEBHOOK_BASE}/webhook-test`, path: 'signup', params: {}, query: {},
      headers: { 'x-ok': 'fine', 'x-evil': 'a\r\nx-injected: yes\ntouch pwned-newline' }, body: undefined, files: {},
    });
    const run = await runInShell(curl, dir.path);
    expect(run.code, run.stderr).to.equal(0);
    expect(listener.received).to.have.length(1);
    expect(listener.received[0]?.headers).to.include({ 'x-ok': 'fine' }).and.not.to.have.any.keys('x-evil', 'x-injected');
    expect(existsSync(join(dir.path, 'pwned-newline'))).to.equal(false);
    expect(curl.split('\n')[0]).to.equal('# Left out: the header "x-evil", whose value holds a line break or a control character.');
  });
});
