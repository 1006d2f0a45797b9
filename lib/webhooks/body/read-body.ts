/**
 * Reads a whole (decoded) body into memory, bounded: a body that grows past the limit is cut off at once. What is
 * left of the request after a failure is drained by the body stream's owner (../payload/index.ts).
 */
import type { Readable } from 'node:stream';
import type { WebhookError } from '../../core/errors.js';
import { bodyStreamError } from './body-stream.js';

/** Reads `stream` (the body stream of body-stream.ts) to the end; `tooLarge` names the limit that applies. */
export function readBody(stream: Readable, limit: number, tooLarge: () => WebhookError): Promise<Buffer> {
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
      stream.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) finish(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (error: Error): void => finish(bodyStreamError(error));
    const onClose = (): void => finish(bodyStreamError(new Error('The body stream closed before its end.')));
    stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
