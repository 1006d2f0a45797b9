/**
 * An uncompressed body read straight from the request into memory, for the bodies that are parsed whole (JSON,
 * form, text, XML): no stream between the socket and the parser, which is most of what a small call costs. The
 * same rules as the streamed path: cut off at the limit at once, a body that sends nothing for `bodyTimeoutMs` is a
 * 408, a caller that hangs up is a 400, and after a failure the rest of the body is drained so the answer can go out.
 */
import type { IncomingMessage } from 'node:http';
import type { WebhookError } from '../errors.js';
import { aborted, stalled } from './body-stream.js';

/** A body being read: when its last byte came, and how to end it. */
interface Reading {
  lastByte: number;
  stall(): void;
}

/**
 * One sweep per timeout length, shared by every body being read, instead of a timer per call: every quarter of the
 * timeout (at most a second), so a stall is answered within a quarter of the timeout after it is due. It stops at
 * the first tick that finds nothing being read (not at once, so that back-to-back calls do not restart it).
 */
const sweeps = new Map<number, { readings: Set<Reading>; timer: NodeJS.Timeout }>();

function watch(timeoutMs: number, reading: Reading): () => void {
  let sweep = sweeps.get(timeoutMs);
  if (sweep === undefined) {
    const readings = new Set<Reading>();
    const timer = setInterval(() => {
      if (readings.size === 0) {
        clearInterval(timer);
        sweeps.delete(timeoutMs);
        return;
      }
      const now = Date.now();
      for (const each of readings) if (now - each.lastByte >= timeoutMs) each.stall();
    }, Math.max(10, Math.min(1000, timeoutMs / 4)));
    timer.unref();
    sweep = { readings, timer };
    sweeps.set(timeoutMs, sweep);
  }
  const { readings } = sweep;
  readings.add(reading);
  return () => {
    readings.delete(reading);
  };
}

export function readRequestBytes(req: IncomingMessage, limit: number, tooLarge: () => WebhookError, timeoutMs: number): Promise<Buffer> {
  // Earlier stages are async: a caller may have gone while they ran, and a destroyed request emits nothing more.
  if (req.destroyed && !req.readableEnded) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const reading: Reading = { lastByte: Date.now(), stall: () => fail(stalled(timeoutMs)) };
    const unwatch = watch(timeoutMs, reading);

    const detach = (): void => {
      unwatch();
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
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
      detach();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => fail(aborted(error));
    const onClose = (): void => {
      if (!req.complete) fail(aborted());
    };
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
