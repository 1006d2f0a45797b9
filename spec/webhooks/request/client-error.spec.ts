/**
 * handleClientError() on a connection of its own (an in-memory Duplex standing in for the socket): what it writes and
 * whether it closes the connection, for the cases a real parser error rarely shows — a caller that reset the
 * connection, a connection that can no longer be written, a request timeout. The cases of an answer pending on the
 * connection are pinned a second time on a real node:http server with pipelined requests (below), so the stand-in's
 * `_httpMessage` cannot drift from what Node keeps there. Other raw HTTP exchanges are in
 * guards/cors-bots-limits.spec.ts. (Mutation testing found these branches unchecked.)
 */
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import { expect } from 'chai';
import { handleClientError } from '../../../lib/index.js';
import { until } from '../../support/fake-clock.js';

/** A socket stand-in that keeps what is written to it. */
function connection(): { socket: Duplex; written: () => string; closed: Promise<void> } {
  const chunks: Buffer[] = [];
  const socket = new Duplex({
    write(chunk: Buffer, _encoding, callback) { chunks.push(Buffer.from(chunk)); callback(); },
    read() { /* the caller sends nothing more */ },
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, written: () => Buffer.concat(chunks).toString('utf8'), closed };
}

const parserError = (code: string): Error & { code: string } => Object.assign(new Error(code), { code });

describe('handleClientError() on one connection', () => {
  it('cuts a connection the caller reset (ECONNRESET) without writing an answer to it', async () => {
    const { socket, written, closed } = connection();
    handleClientError(parserError('ECONNRESET'), socket);
    await closed;
    expect(written()).to.equal('');
  });

  it('cuts a connection that can no longer be written, without trying to answer', async () => {
    const { socket, written, closed } = connection();
    socket.end();
    handleClientError(parserError('HPE_INVALID_METHOD'), socket);
    await closed;
    expect(written()).to.equal('');
  });

  for (const [code, status, body] of [
    ['ERR_HTTP_REQUEST_TIMEOUT', '408 Request Timeout', { code: 'REQUEST_TIMEOUT', message: 'The request was not completed in time.' }],
    ['HPE_HEADER_OVERFLOW', '431 Request Header Fields Too Large', { code: 'LIMIT_HEADERS', message: 'The request headers are too large.' }],
    ['HPE_INVALID_METHOD', '400 Bad Request', { code: 'REQUEST_MALFORMED', message: 'The request could not be read as HTTP.' }],
  ] as const) {
    it(`answers ${code} with ${status} and ${body.code} in JSON, then closes the connection once the answer is out`, async () => {
      const { socket, written, closed } = connection();
      handleClientError(parserError(code), socket);
      await closed;
      const [head, json] = written().split('\r\n\r\n') as [string, string];
      expect(head.split('\r\n')).to.include.members([`HTTP/1.1 ${status}`, 'Content-Type: application/json; charset=utf-8', 'Connection: close', `Content-Length: ${Buffer.byteLength(json)}`]);
      expect(JSON.parse(json)).to.deep.include(body);
    });
  }

  describe('while an answer to an earlier request on the connection is pending', () => {
    /** The response Node keeps on the socket while it answers the request before the broken one. */
    function pendingOn(socket: Duplex, state: { writableFinished?: boolean; headersSent?: boolean; complete?: boolean }): EventEmitter {
      const response = Object.assign(new EventEmitter(), { writableFinished: state.writableFinished, headersSent: state.headersSent, req: { complete: state.complete } });
      Object.assign(socket, { _httpMessage: response });
      return response;
    }

    it('waits for that answer to go out, then answers the broken request after it', async () => {
      const { socket, written, closed } = connection();
      const response = pendingOn(socket, { writableFinished: false, headersSent: false, complete: true });
      handleClientError(parserError('HPE_INVALID_METHOD'), socket);
      await new Promise((resolve) => setImmediate(resolve));
      expect(written(), 'nothing interleaved with the pending answer').to.equal('');
      response.emit('close');
      await closed;
      expect(written()).to.match(/^HTTP\/1\.1 400 Bad Request\r\n/);
    });

    it('cuts the connection without a word when half of that answer is already on the wire and its request is broken', async () => {
      const { socket, written, closed } = connection();
      pendingOn(socket, { writableFinished: false, headersSent: true, complete: false });
      handleClientError(parserError('HPE_INVALID_CHUNK_SIZE'), socket);
      await closed;
      expect(written()).to.equal('');
    });

    it('answers at once when the request being answered is itself the broken one and nothing of its answer went out', async () => {
      const { socket, written, closed } = connection();
      pendingOn(socket, { writableFinished: false, headersSent: false, complete: false });
      handleClientError(parserError('HPE_INVALID_CHUNK_SIZE'), socket);
      await closed;
      expect(written()).to.match(/^HTTP\/1\.1 400 Bad Request\r\n/);
    });

    it('answers at once when the earlier answer has already finished', async () => {
      const { socket, written, closed } = connection();
      pendingOn(socket, { writableFinished: true, headersSent: true, complete: true });
      handleClientError(parserError('HPE_HEADER_OVERFLOW'), socket);
      await closed;
      expect(written()).to.match(/^HTTP\/1\.1 431 /);
    });

    it('cuts the connection instead of answering when it was closed while the earlier answer went out', async () => {
      const { socket, written, closed } = connection();
      const response = pendingOn(socket, { writableFinished: false, headersSent: false, complete: true });
      handleClientError(parserError('HPE_INVALID_METHOD'), socket);
      socket.end();
      response.emit('close');
      await closed;
      expect(written()).to.equal('');
    });
  });
});

/**
 * The same cases on a real node:http server with handleClientError as its 'clientError' listener, the requests
 * pipelined on one raw connection: what Node itself keeps on the socket while it answers, not a stand-in for it.
 */
describe('handleClientError() on a real node:http server, requests pipelined on one connection', () => {
  let server: Server;
  let port: number;
  /** Releases the answer to the request being held, if any. */
  let release: () => void = () => undefined;
  const seen: string[] = [];

  beforeEach(async () => {
    seen.length = 0;
    server = createServer((req, res) => {
      seen.push(`${req.method ?? ''} ${req.url ?? ''}`);
      req.on('error', () => undefined);
      if (req.url === '/held') {
        release = () => { res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '11' }).end('held answer'); };
        return;
      }
      if (req.url === '/body') return; // waits for a body that never completes
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '12' }).end('first answer');
    });
    server.on('clientError', handleClientError);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ({ port } = server.address() as AddressInfo);
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Sends `bytes` at once on a new connection; resolves everything the server wrote once it closed the connection. */
  function exchange(bytes: string, whileOpen?: () => Promise<void>): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => { received += chunk.toString('utf8'); });
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
      socket.write(bytes);
      void whileOpen?.().catch(reject);
    });
  }

  const GARBAGE = 'NOT-HTTP AT ALL\r\n\r\n';

  it('answers the broken second request 400 in JSON after the first request\'s answer, never inside it', async () => {
    const received = await exchange(`GET /first HTTP/1.1\r\nHost: x\r\n\r\n${GARBAGE}`);
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).to.match(/^HTTP\/1\.1 200 OK\r\n[\s\S]*first answer$/);
    expect(second).to.match(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*Connection: close\r\n/);
    expect(JSON.parse((second as string).split('\r\n\r\n')[1] as string)).to.deep.include({ code: 'REQUEST_MALFORMED' });
    expect(seen).to.deep.equal(['GET /first']);
  });

  it('waits for an answer still being worked on, then answers the broken request after it', async () => {
    const received = await exchange(`GET /held HTTP/1.1\r\nHost: x\r\n\r\n${GARBAGE}`, async () => {
      await until(() => seen.length === 1, 'the first request reached its handler');
      // The parser has met the broken request by now or soon: the answer to it must still wait for this one.
      await new Promise((resolve) => setImmediate(resolve));
      release();
    });
    expect(received).to.match(/^HTTP\/1\.1 200 OK\r\n[\s\S]*held answer(?=HTTP\/1\.1 400 Bad Request\r\n)/);
  });

  it('answers at once, 400 in JSON, when the request being handled is itself the broken one (bad chunking)', async () => {
    const received = await exchange('POST /body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n');
    expect(received).to.match(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(received.split('\r\n\r\n')[1] as string)).to.deep.include({ code: 'REQUEST_MALFORMED' });
    expect(seen).to.deep.equal(['POST /body']);
  });
});
