/**
 * The watch on a request while its body is read: a caller that hangs up is BODY_ABORTED, a body that sends nothing
 * for `timeoutMs` while we wait for it is BODY_TIMEOUT. Every body reader uses it (busboy reading the request
 * straight, the inflating or raw body stream); the request itself is never destroyed, so the error can still be
 * answered on its connection. Progress is read from the socket's byte count at each tick of the shared sweep
 * rather than from a listener on every chunk, which is most of what a watch would cost an upload.
 */
import type { IncomingMessage } from 'node:http';
import { WebhookError } from '../errors.js';
import { watchStall, type Reading } from './stall-sweep.js';

export const aborted = (cause?: unknown): WebhookError =>
  new WebhookError('BODY_ABORTED', 'The request body was aborted before it was complete.', { cause });

/** The rest of a stalled body may never come: the answer closes the connection instead of waiting for it. */
export function stalled(ms: number): WebhookError {
  return new WebhookError('BODY_TIMEOUT', `The request body stalled: no bytes arrived for ${ms} ms.`, {
    hint: 'Send the body without long pauses, or raise the middleware option bodyTimeoutMs.',
    headers: { connection: 'close' },
  });
}

/**
 * Earlier stages are async: a caller may have gone while they ran, and a destroyed request emits nothing more, so
 * a reader must not start waiting for it.
 */
export function callerGone(req: IncomingMessage): boolean {
  return req.destroyed && !req.readableEnded;
}

/**
 * Calls `fail` once if the body stalls or its caller goes before it ends, else `ended` once the body is in; the
 * returned function ends the watch early.
 */
export function watchRequest(req: IncomingMessage, timeoutMs: number, fail: (error: WebhookError) => void, ended?: () => void): () => void {
  let bytesRead = req.socket?.bytesRead ?? 0;
  const reading: Reading = {
    lastByte: Date.now(),
    refresh(now) {
      const read = req.socket?.bytesRead ?? 0;
      // Paused by backpressure (a slow disk or parser), the caller is waiting for us, not stalling.
      if (read !== bytesRead || req.isPaused()) {
        bytesRead = read;
        this.lastByte = now;
      }
    },
    stall: () => end(stalled(timeoutMs)),
  };
  const unwatch = watchStall(timeoutMs, reading);
  let stopped = false;
  // No 'error' listener: a request emits 'error' only to listeners it has, and every hang-up or failure of the
  // connection also closes it before it is complete.
  const onClose = (): void => {
    if (!stopped && !req.complete) end(aborted());
  };
  // The listeners stay on the request once stopped (they do nothing then): taking them off would cost every upload.
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    unwatch();
  };
  const end = (error: WebhookError): void => {
    stop();
    fail(error);
  };
  // Once the body is in, what is left (files still being written) is our work, not the caller's.
  const onEnd = (): void => {
    if (stopped) return;
    stop();
    ended?.();
  };
  req.on('end', onEnd).on('close', onClose);
  return stop;
}
