/**
 * For the host's server: `server.on('clientError', handleClientError)` answers requests Node's HTTP parser refuses
 * (bad request line, invalid header characters, headers over --max-http-header-size, a request timeout) with the same
 * JSON error shape as everything else, instead of a bare status line.
 */
import type { Duplex } from 'node:stream';
import { WebhookError } from '../../core/errors.js';

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

function errorFor(code: string | undefined): WebhookError {
  if (code === 'HPE_HEADER_OVERFLOW') return new WebhookError('LIMIT_HEADERS', 'The request headers are too large.');
  return new WebhookError('REQUEST_MALFORMED', 'The request could not be read as HTTP.');
}

type PendingResponse = { writableFinished?: boolean; headersSent?: boolean; req?: { complete?: boolean }; once(event: 'close', listener: () => void): unknown };

export function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  // Bytes after a complete request (a Content-Length shorter than the body) parse as a broken second request.
  // The first request's answer is still on its way: let it go out first, never interleave with it.
  const pending = (socket as Duplex & { _httpMessage?: PendingResponse | null })._httpMessage;
  if (pending !== undefined && pending !== null && pending.writableFinished !== true) {
    // Half an answer is on the wire: another status line would corrupt it; the connection can only be cut.
    if (pending.headersSent === true && pending.req?.complete === false) {
      socket.destroy();
      return;
    }
    // The request being answered is itself broken (bad chunking, or the client closed before its body ended): its
    // handler can read no more, so answer now; closing the connection then shows the handler an aborted request.
    if (pending.req?.complete === false) {
      answer(error, socket);
      return;
    }
    pending.once('close', () => { if (socket.writable) answer(error, socket); else socket.destroy(); });
    return;
  }
  answer(error, socket);
}

function answer(error: Error & { code?: string }, socket: Duplex): void {
  const webhookError = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? new WebhookError('REQUEST_TIMEOUT', 'The request was not completed in time.')
    : errorFor(error.code);
  const body = JSON.stringify(webhookError.toJSON());
  const status = `${webhookError.status} ${STATUS_TEXT[webhookError.status] ?? 'Bad Request'}`;
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // A half-open socket would keep the aborted request's handler waiting: close it once the answer is out.
  socket.once('finish', () => socket.destroy());
}
