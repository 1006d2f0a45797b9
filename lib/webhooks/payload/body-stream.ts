/**
 * The request body as a stream of its decoded bytes: `Content-Encoding: gzip`, `deflate` and `br` are inflated
 * here, so every parser and every limit downstream counts inflated bytes (no zip bombs past a limit).
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { WebhookError } from '../errors.js';

const INFLATERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

export function contentEncoding(req: IncomingMessage): string {
  return (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
}

export function openBodyStream(req: IncomingMessage): Readable {
  // Earlier stages are async: a caller may have gone while they ran, and a destroyed request emits nothing more.
  if (req.destroyed && !req.readableEnded) {
    throw new WebhookError('BODY_ABORTED', 'The request body was aborted before it was complete.');
  }
  const encoding = contentEncoding(req);
  if (encoding === 'identity' || encoding === '') return req;
  const inflater = INFLATERS[encoding];
  if (inflater === undefined) {
    throw new WebhookError('BODY_UNSUPPORTED_ENCODING', `The content encoding "${encoding}" is not supported.`, {
      hint: 'Send the body uncompressed, or compressed with gzip, deflate or br.',
    });
  }
  const inflating = inflater() as unknown as Readable;
  // A corrupt stream is the caller's fault: say so instead of failing like a server error.
  inflating.once('error', () => undefined);
  req.once('error', (error) => inflating.destroy(error));
  req.once('close', () => {
    if (!req.complete) inflating.destroy(new WebhookError('BODY_ABORTED', 'The request body was aborted before it was complete.'));
  });
  req.pipe(inflating as unknown as NodeJS.WritableStream);
  return inflating;
}

/** Maps stream failures to coded errors: zlib errors carry a `code` starting with Z_ or ERR_. */
export function bodyStreamError(error: unknown): WebhookError {
  if (error instanceof WebhookError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('Z_') || code.includes('BROTLI'))) {
    return new WebhookError('BODY_INVALID_ENCODING', 'The compressed request body could not be inflated.', { cause: error });
  }
  return new WebhookError('BODY_ABORTED', 'The request body was aborted before it was complete.', { cause: error });
}
