import type { Server } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { bodyOnFakeClock, type BodyStep } from '../../support/fake-clock-body.js';
import { firstAnswer, listen, writePostHead, type SocketAnswer } from '../../support/raw-http.js';
import { eventually, filesUnder, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

const TIMEOUT_MS = 300;

type Answer = SocketAnswer;

/**
 * A client on a raw socket: it sends the head and `parts` of the body, `gapMs` apart, and never the rest unless
 * `parts` complete the announced length. Resolves with the first answer the server writes.
 */
function stallingClient(port: number, headers: Record<string, string>, length: number, parts: (string | Buffer)[], gapMs = 0): Promise<Answer> {
  const socket = connect(port, '127.0.0.1');
  let giveUp: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    giveUp = setTimeout(() => { socket.destroy(); reject(new Error('no answer within 5 s')); }, 5000);
  });
  const answered = firstAnswer(socket);
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
      it(`lets ${label} through whose bytes keep coming`, async () => {
        const answer = await stallingClient(port, headers, Buffer.byteLength(parts.join('')), parts, TIMEOUT_MS / 3);
        expect(answer.status).to.equal(200);
        expect(calls).to.equal(1);
      });
    }
  });

  describe(`a request body's pauses on a fake clock in ${host.name}`, () => {
    /** A bodyTimeoutMs of its own gives the body a sweep of its own, looking every 770 ms (a quarter of it). */
    const PAUSE_LIMIT_MS = 3080;
    const SWEEP_MS = PAUSE_LIMIT_MS / 4;
    let calls: number;
    let close: () => Promise<void>;
    let server: Server;

    beforeEach(async () => {
      calls = 0;
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData' }));
      const app = host.build(createWebhookMiddleware(registry, async () => { calls += 1; return { items: [] }; }, {
        // No minimum rate: these bodies are slower than any, on purpose; only their pauses are looked at.
        bodyTimeoutMs: PAUSE_LIMIT_MS, maxRunMs: 0, minBodyRate: false,
      }));
      ({ close, server } = await listen(app));
    });
    afterEach(() => close());

    const json = (steps: BodyStep[]) => bodyOnFakeClock(server, `${BASE}/webhook/in`, { 'content-type': 'application/json' }, 7, SWEEP_MS, steps);

    it('does not cut a body that pauses a little less than bodyTimeoutMs', async () => {
      // The sweep's first look starts the count; three more are 2310 ms of silence.
      const answer = await json([{ write: '{"a":' }, { ticks: 4 }, { write: '1}' }]);
      expect(answer.status).to.equal(200);
      expect(calls).to.equal(1);
    });

    it('cuts a body silent for bodyTimeoutMs, 408 BODY_TIMEOUT', async () => {
      const answer = await json([{ write: '{"a":' }, { ticks: 5 }, { write: '1}' }]);
      expect([answer.status, answer.body.code]).to.deep.equal([408, 'BODY_TIMEOUT']);
      expect(calls).to.equal(0);
    });

    it('lets a body through whose pauses are each shorter than bodyTimeoutMs, though it takes four times as long in total', async () => {
      const parts = ['{"a"', ':', '1', ',"b"', ':2', '}'];
      const steps: BodyStep[] = [{ write: parts[0] as string }, { ticks: 1 }];
      for (const part of parts.slice(1)) steps.push({ ticks: 3 }, { write: part });
      const answer = await bodyOnFakeClock(server, `${BASE}/webhook/in`, { 'content-type': 'application/json' }, parts.join('').length, SWEEP_MS, steps);
      expect(answer.status).to.equal(200);
      expect(calls).to.equal(1);
    });
  });
}
