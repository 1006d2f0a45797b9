/**
 * An uncompressed body read straight from the request into memory, for the bodies that are parsed whole (JSON,
 * form, text, XML): no stream between the socket and the parser, which is most of what a small call costs. The
 * same rules as the streamed path: cut off at the limit at once, a body that sends nothing for `bodyTimeoutMs` or
 * trickles below `minBodyRate` is a 408, a caller that hangs up is a 400, and after a failure the rest of the body is
 * drained so the answer can go out.
 */
import type { IncomingMessage } from 'node:http';
import type { WebhookError } from '../../core/errors.js';
import { aborted, callerGone, watchRequest, type BodyPace } from './request-watch.js';

export function readRequestBytes(req: IncomingMessage, limit: number, tooLarge: () => WebhookError, pace: BodyPace): Promise<Buffer> {
  if (callerGone(req)) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: WebhookError): void => {
      unwatch();
      req.off('data', onData);
      // The rest of the body is read and dropped: the error answer can then go out on this connection.
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) fail(tooLarge());
      else chunks.push(chunk);
    };
    // The watch's listeners stay on the ended request (they do nothing then): taking them off would cost every call.
    const unwatch = watchRequest(req, pace, fail, () => {
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      // This closure stays reachable from the watch's listeners until the request is collected: let go of the
      // chunks now, so a joined body is not held twice while the run works on it.
      chunks.length = 0;
    });
    req.on('data', onData);
  });
}
