/**
 * Reads a whole request body into memory, bounded: a declared Content-Length over the limit is refused before a
 * byte is read, and a body that grows past it is cut off at once. Never leaves the request half-read when it
 * fails, so the connection can still carry the error response.
 */
import type { IncomingMessage } from 'node:http';
import { WebhookError } from '../errors.js';

export function tooLarge(limit: number): WebhookError {
  return new WebhookError('LIMIT_BODY_SIZE', `The request body is larger than the limit of ${limit} bytes.`, {
    hint: 'Send a smaller body, or raise the middleware option limits.bodySize.',
  });
}

export function aborted(cause?: unknown): WebhookError {
  return new WebhookError('BODY_ABORTED', 'The request body was aborted before it was complete.', { cause });
}

/** Reads the body; resolves an empty buffer for requests without one. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: WebhookError | undefined): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error === undefined) {
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
        return;
      }
      // Keep reading into the void so the client sees our answer rather than a reset.
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (error: Error): void => finish(aborted(error));
    const onClose = (): void => finish(req.complete ? undefined : aborted());
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
