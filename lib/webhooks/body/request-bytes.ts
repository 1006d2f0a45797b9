/**
 * An uncompressed body read straight from the request into memory, for the bodies that are parsed whole (JSON,
 * form, text, XML): no stream between the socket and the parser, which is most of what a small call costs. The
 * same rules as the streamed path: cut off at the limit at once, a body that sends nothing for `bodyTimeoutMs` or
 * trickles below `minBodyRate` is a 408, a caller that hangs up is a 400, and after a failure the rest of the body is
 * drained so the answer can go out.
 */
import type { IncomingMessage } from 'node:http';
import type { WebhookError } from '../../core/errors.js';
import { aborted, callerGone, RequestWatch, type BodyPace } from './request-watch.js';

export function readRequestBytes(req: IncomingMessage, limit: number, tooLarge: () => WebhookError, pace: BodyPace): Promise<Buffer> {
  if (callerGone(req)) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    new WholeBody(req, pace, limit, tooLarge, resolve, reject).start();
  });
}

/** One body read whole: the watch of its pace, its chunks, and the promise it settles. */
class WholeBody extends RequestWatch {
  readonly #chunks: Buffer[] = [];
  #size = 0;
  readonly #limit: number;
  readonly #tooLarge: () => WebhookError;
  readonly #resolve: (bytes: Buffer) => void;
  readonly #reject: (error: WebhookError) => void;

  constructor(
    req: IncomingMessage, pace: BodyPace, limit: number, tooLarge: () => WebhookError,
    resolve: (bytes: Buffer) => void, reject: (error: WebhookError) => void,
  ) {
    super(req, pace);
    this.#limit = limit;
    this.#tooLarge = tooLarge;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  start(): void {
    this.req.on('data', this.#onData);
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#size += chunk.length;
    if (this.#size > this.#limit) this.end(this.#tooLarge());
    else this.#chunks.push(chunk);
  };

  protected failed(error: WebhookError): void {
    this.req.off('data', this.#onData);
    // The rest of the body is read and dropped: the error answer can then go out on this connection.
    this.req.resume();
    this.#reject(error);
  }

  protected override completed(): void {
    const chunks = this.#chunks;
    this.#resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#size));
    // The watch stays reachable from the request's listeners until the request is collected: let go of the chunks
    // now, so a joined body is not held twice while the run works on it.
    chunks.length = 0;
  }
}
