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
  return readWholeRequest(req, limit, tooLarge, pace, asBytes, undefined);
}

const asBytes = (bytes: Buffer): Buffer => bytes;
const ignore = (): void => undefined;

/**
 * Reads the body whole, then resolves with `convert(bytes, context)` (a parser: what it throws rejects), so that a
 * body parsed as it ends costs one promise, not one for the bytes and another for what they become.
 */
export function readWholeRequest<T, C>(
  req: IncomingMessage, limit: number, tooLarge: () => WebhookError, pace: BodyPace, convert: (bytes: Buffer, context: C) => T, context: C,
): Promise<T> {
  if (callerGone(req)) return Promise.reject(aborted());
  const body = new WholeBody(req, pace, limit, tooLarge, convert, context);
  return new Promise((resolve, reject) => { body.start(resolve, reject); });
}

/** One body read whole: the watch of its pace, its chunks, what it becomes, and the promise it settles. */
class WholeBody<T, C> extends RequestWatch {
  readonly #chunks: Buffer[] = [];
  #size = 0;
  readonly #limit: number;
  readonly #tooLarge: () => WebhookError;
  readonly #convert: (bytes: Buffer, context: C) => T;
  readonly #context: C;
  #resolve: (value: T) => void = ignore;
  #reject: (error: unknown) => void = ignore;

  constructor(req: IncomingMessage, pace: BodyPace, limit: number, tooLarge: () => WebhookError, convert: (bytes: Buffer, context: C) => T, context: C) {
    super(req, pace);
    this.#limit = limit;
    this.#tooLarge = tooLarge;
    this.#convert = convert;
    this.#context = context;
  }

  start(resolve: (value: T) => void, reject: (error: unknown) => void): void {
    this.#resolve = resolve;
    this.#reject = reject;
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
    try {
      this.#resolve(this.#convert(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#size), this.#context));
    } catch (error) {
      this.#reject(error);
    }
    // The watch stays reachable from the request's listeners until the request is collected: let go of the chunks
    // now, so a joined body is not held twice while the run works on it.
    chunks.length = 0;
  }
}
