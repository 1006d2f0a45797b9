/**
 * Raw HTTP for what supertest cannot send: chunked bodies, bodies in another charset, hand-written multipart,
 * and clients that hang up half-way. Always on loopback.
 */
import { createServer, request, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: unknown;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** Written one after another; without a content-length header Node sends them chunked. */
  chunks?: (string | Buffer)[];
  /** The loopback address the call comes from (127.0.0.2 is another caller than 127.0.0.1); default the OS's choice. */
  localAddress?: string;
}

export async function listen(app: RequestListener): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export async function send(app: RequestListener, raw: RawRequest): Promise<RawResponse> {
  const running = await listen(app);
  try {
    return await sendTo(running.port, raw);
  } finally {
    await running.close();
  }
}

export function sendTo(port: number, raw: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: raw.method ?? 'POST', path: raw.path, headers: raw.headers, localAddress: raw.localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try { body = JSON.parse(text); } catch { body = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    for (const chunk of raw.chunks ?? []) req.write(chunk);
    req.end();
  });
}

/** The first answer read off a raw socket: status line, head and JSON body (`{}` when it has none). */
export interface SocketAnswer {
  status: number;
  head: string;
  body: { code?: string; message?: string };
}

/**
 * Resolves with the first complete answer the server writes on `socket`: an answer with a content-length once that
 * many bytes came, a chunked one (an empty 200) once its last chunk came. Rejects on a socket error.
 */
export function firstAnswer(socket: Socket): Promise<SocketAnswer> {
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const text = Buffer.concat(received).toString();
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return;
      const declared = /content-length: (\d+)/i.exec(text.slice(0, split));
      const rest = text.slice(split + 4);
      if (declared === null ? !text.endsWith('0\r\n\r\n') : Buffer.byteLength(rest) < Number(declared[1])) return;
      const body = declared === null || rest === '' ? {} : JSON.parse(rest) as SocketAnswer['body'];
      resolve({ status: Number(text.slice(9, 12)), head: text.slice(0, split), body });
    });
  });
}

/** Writes the head of `POST <path>` announcing `length` body bytes. */
export function writePostHead(socket: Socket, path: string, headers: Record<string, string>, length: number): void {
  const head = Object.entries({ ...headers, host: '127.0.0.1', 'content-length': String(length) })
    .map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
}

/** One answer of several read off one connection: status, head (lower-cased header names) and JSON body (`{}` when none). */
export interface PipelinedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * Writes `requests` (each a whole raw HTTP/1.1 request) at once on one connection to `port`, the last with
 * `Connection: close` added, and resolves with every answer the server wrote, in order, once it closed.
 */
export function pipelined(port: number, requests: string[]): Promise<PipelinedAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(received).toString('utf8').split(/(?=HTTP\/1\.1 \d{3} )/).map(parseAnswer)));
    const last = requests.length - 1;
    socket.write(requests.map((raw, index) => (index === last ? raw.replace('\r\n', '\r\nConnection: close\r\n') : raw)).join(''));
  });
}

function parseAnswer(answer: string): PipelinedAnswer {
  const split = answer.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of answer.slice(0, split).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let text = answer.slice(split + 4);
  // A chunked answer's chunks, joined (the bodies here are ASCII JSON, so characters count as bytes).
  if (headers['transfer-encoding'] === 'chunked') {
    let joined = '';
    for (let at = 0; ;) {
      const end = text.indexOf('\r\n', at);
      const size = parseInt(text.slice(at, end), 16);
      if (!(size > 0)) break;
      joined += text.slice(end + 2, end + 2 + size);
      at = end + 2 + size + 2;
    }
    text = joined;
  }
  return { status: Number(answer.slice(9, 12)), headers, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> };
}
