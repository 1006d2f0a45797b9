import { connect } from 'node:net';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { firstAnswer, listen, writePostHead, type SocketAnswer } from '../../support/raw-http.js';
import { eventually, filesUnder, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

const TIMEOUT_MS = 300;

interface Answer extends SocketAnswer { afterMs: number }

/**
 * A client on a raw socket: it sends the head and `parts` of the body, `gapMs` apart, and never the rest unless
 * `parts` complete the announced length. Resolves with the first answer the server writes.
 */
function stallingClient(port: number, headers: Record<string, string>, length: number, parts: (string | Buffer)[], gapMs = 0): Promise<Answer> {
  const started = Date.now();
  const socket = connect(port, '127.0.0.1');
  let giveUp: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    giveUp = setTimeout(() => { socket.destroy(); reject(new Error('no answer within 5 s')); }, 5000);
  });
  const answered = firstAnswer(socket).then((answer) => ({ ...answer, afterMs: Date.now() - started }));
  writePostHead(socket, `${BASE}/webhook/in`, headers, length);
  parts.forEach((part, index) => setTimeout(() => { if (!socket.destroyed) socket.write(part); }, index * gapMs));
  return Promise.race([answered, late]).finally(() => { clearTimeout(giveUp); socket.destroy(); });
}

for (const host of HOSTS) {
  describe(`a request body that stalls in ${host.name}`, () => {
    let temp: TempDir;
    let calls: number;
    let close: () => Promise<void>;
    let port: number;

    beforeEach(async () => {
      temp = makeTempDir();
      calls = 0;
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData' }));
      const app = host.build(createWebhookMiddleware(registry, async () => { calls += 1; return { items: [] }; }, {
        bodyTimeoutMs: TIMEOUT_MS,
        uploads: { tempDir: temp.path, memoryThreshold: 0 },
      }));
      ({ close, port } = await listen(app));
    });
    afterEach(async () => { await close(); temp.remove(); });

    it('answers 408 BODY_TIMEOUT for a buffered (JSON) body, once no byte came for bodyTimeoutMs', async () => {
      const answer = await stallingClient(port, { 'content-type': 'application/json' }, 100, ['{"a":']);
      expect([answer.status, answer.body.code]).to.deep.equal([408, 'BODY_TIMEOUT']);
      // Not before the body was silent for bodyTimeoutMs (timers may fire a few ms early); a hang fails the client.
      expect(answer.afterMs).to.be.at.least(TIMEOUT_MS - 20);
      // The rest of the body may never come: the connection is not kept for it.
      expect(answer.head).to.match(/\r\nconnection: close\r\n/i);
      expect(calls).to.equal(0);
    });

    it('answers 408 BODY_TIMEOUT for a raw binary body and removes the temp file it had begun', async () => {
      let sawFile = false;
      const watch = setInterval(() => { sawFile ||= filesUnder(temp.path).length > 0; }, 5);
      const answer = await stallingClient(port, { 'content-type': 'application/zip' }, 1024 * 1024, [Buffer.alloc(64 * 1024, 1)])
        .finally(() => clearInterval(watch));
      expect([answer.status, answer.body.code]).to.deep.equal([408, 'BODY_TIMEOUT']);
      expect(sawFile).to.equal(true);
      await eventually(() => temp.files().length === 0);
      expect(calls).to.equal(0);
    });

    it('answers 408 BODY_TIMEOUT for a multipart body and removes every temp file it had begun', async () => {
      let sawFile = false;
      const watch = setInterval(() => { sawFile ||= filesUnder(temp.path).length > 0; }, 5);
      const head = '--B\r\nContent-Disposition: form-data; name="f"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n';
      const answer = await stallingClient(port, { 'content-type': 'multipart/form-data; boundary=B' }, 1024 * 1024, [head, Buffer.alloc(64 * 1024, 1)])
        .finally(() => clearInterval(watch));
      expect([answer.status, answer.body.code]).to.deep.equal([408, 'BODY_TIMEOUT']);
      expect(sawFile).to.equal(true);
      await eventually(() => temp.files().length === 0);
      expect(calls).to.equal(0);
    });

    it('answers 408 for a compressed body that stalls', async () => {
      const answer = await stallingClient(port, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 100, [Buffer.from([0x1f, 0x8b])]);
      expect([answer.status, answer.body.code]).to.deep.equal([408, 'BODY_TIMEOUT']);
    });

    const slowBodies: [string, Record<string, string>, string[]][] = [
      ['a JSON body', { 'content-type': 'application/json' }, ['{"a"', ':', '1', ',"b"', ':2', '}']],
      ['a multipart upload', { 'content-type': 'multipart/form-data; boundary=S' }, [
        '--S\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\n', 'first ', 'second ', 'third', '\r\n--S--\r\n',
      ]],
      ['a raw binary body', { 'content-type': 'application/octet-stream' }, ['one ', 'two ', 'three ', 'four ', 'five']],
    ];
    for (const [label, headers, parts] of slowBodies) {
      it(`lets ${label} through whose bytes keep coming, though it takes longer than bodyTimeoutMs in total`, async () => {
        const answer = await stallingClient(port, headers, Buffer.byteLength(parts.join('')), parts, TIMEOUT_MS / 3);
        expect(answer.status).to.equal(200);
        expect(answer.afterMs).to.be.greaterThan(TIMEOUT_MS);
        expect(calls).to.equal(1);
      });
    }
  });
}
