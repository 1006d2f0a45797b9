/**
 * Reads a whole (decoded) body into memory, bounded: a body that grows past the limit is cut off at once.
 * The request is drained after a failure so the connection can still carry the error response.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { WebhookError } from '../errors.js';
import { bodyStreamError } from './body-stream.js';

/** Reads `stream` (the request or its inflated form) to the end; `tooLarge` names the limit that applies. */
export function readBody(req: IncomingMessage, stream: Readable, limit: number, tooLarge: () => WebhookError): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: WebhookError | undefined): void => {
      if (settled) return;
      settled = true;
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error === undefined) {
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
        return;
      }
      if (stream !== req) stream.destroy();
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) finish(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (error: Error): void => finish(bodyStreamError(error));
    const onClose = (): void => finish(req.complete && stream === req ? undefined : bodyStreamError(new Error('closed')));
    stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
