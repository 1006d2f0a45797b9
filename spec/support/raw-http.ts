/**
 * Raw HTTP for what supertest cannot send: chunked bodies, bodies in another charset, hand-written multipart,
 * and clients that hang up half-way. Always on loopback.
 */
import { createServer, request, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
    const req = request({ host: '127.0.0.1', port, method: raw.method ?? 'POST', path: raw.path, headers: raw.headers }, (res) => {
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
