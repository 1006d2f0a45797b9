/**
 * An uncompressed body read straight from the request into memory, for the bodies that are parsed whole (JSON,
 * form, text, XML): no stream between the socket and the parser, which is most of what a small call costs. The
 * same rules as the streamed path: cut off at the limit at once, a body that sends nothing for `bodyTimeoutMs` is a
 * 408, a caller that hangs up is a 400, and after a failure the rest of the body is drained so the answer can go out.
 */
import type { IncomingMessage } from 'node:http';
import type { WebhookError } from '../errors.js';
import { aborted, callerGone, stalled } from './request-watch.js';
import { watchStall, type Reading } from './stall-sweep.js';

export function readRequestBytes(req: IncomingMessage, limit: number, tooLarge: () => WebhookError, timeoutMs: number): Promise<Buffer> {
  if (callerGone(req)) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const reading: Reading = { lastByte: Date.now(), stall: () => fail(stalled(timeoutMs)) };
    const unwatch = watchStall(timeoutMs, reading);

    const detach = (): void => {
      unwatch();
      req.off('data', onData).off('end', onEnd).off('close', onClose);
    };
    const fail = (error: WebhookError): void => {
      detach();
      // The rest of the body is read and dropped: the error answer can then go out on this connection.
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      reading.lastByte = Date.now();
      size += chunk.length;
      if (size > limit) fail(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      // The listeners stay on the ended request (its 'close' then finds it complete and does nothing): taking them
      // off would cost every call more than leaving them.
      unwatch();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      chunks.length = 0;
    };
    // No 'error' listener: a request emits 'error' only to listeners it has, and every hang-up or failure of the
    // connection also closes it before it is complete.
    const onClose = (): void => {
      if (!req.complete) fail(aborted());
    };
    req.on('data', onData).on('end', onEnd).on('close', onClose);
  });
}
