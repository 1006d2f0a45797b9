/**
 * A body refused from its Content-Length alone: a client sends only the head of a call that announces more bytes than
 * the limit, holds its socket open and never sends the body, and is answered 413 at once, without the server waiting
 * for a byte of it (were it read first, the answer would be the body timeout's 408).
 */
import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { firstAnswer, listen, writePostHead, type SocketAnswer } from '../../support/raw-http.js';
import { makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

const LIMIT = 1024;

for (const host of HOSTS) {
  describe(`a body announced larger than its limit in ${host.name}`, () => {
    let temp: TempDir;
    let calls: number;
    let close: () => Promise<void>;
    let port: number;
    const sockets: Socket[] = [];

    beforeEach(async () => {
      temp = makeTempDir();
      calls = 0;
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData' }));
      const app = host.build(createWebhookMiddleware(registry, () => { calls += 1; return { items: [] }; }, {
        limits: { jsonSize: LIMIT, binarySize: LIMIT },
        // Long beside a test's run, so an answer that waited for the body would be a 408, never a 413.
        bodyTimeoutMs: 2000,
        uploads: { tempDir: temp.path },
      }));
      ({ close, port } = await listen(app));
    });
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.destroy();
      await close();
      temp.remove();
    });

    /** Sends the head alone, announcing LIMIT + 1 bytes, and keeps the socket open until the answer. */
    function headOnly(contentType: string): Promise<SocketAnswer> {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      const answered = firstAnswer(socket);
      writePostHead(socket, `${BASE}/webhook/in`, { 'content-type': contentType }, LIMIT + 1);
      return answered;
    }

    it('answers 413 LIMIT_JSON_SIZE to a JSON call from its Content-Length, before its body is sent', async () => {
      const answer = await headOnly('application/json');
      expect([answer.status, answer.body.code]).to.deep.equal([413, 'LIMIT_JSON_SIZE']);
      expect(calls).to.equal(0);
    });

    it('answers 413 LIMIT_BINARY_SIZE to a raw binary call from its Content-Length, before its body is sent', async () => {
      const answer = await headOnly('application/octet-stream');
      expect([answer.status, answer.body.code]).to.deep.equal([413, 'LIMIT_BINARY_SIZE']);
      expect(calls).to.equal(0);
    });
  });
}
