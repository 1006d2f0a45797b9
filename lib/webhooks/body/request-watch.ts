/**
 * The watch on a request while its body is read: a caller that hangs up is BODY_ABORTED, a body that sends nothing
 * for `idleMs` while we wait for it is BODY_TIMEOUT, and one that trickles in below the minimum rate is BODY_TOO_SLOW.
 * Every body reader uses it (busboy reading the request straight, the inflating or raw body stream); the request
 * itself is never destroyed, so the error can still be answered on its connection. Progress is read from the
 * socket's byte count at each tick of the shared sweep rather than from a listener on every chunk, which is most of
 * what a watch would cost an upload.
 */
import type { IncomingMessage } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import { unwatchBody, watchBody, type Reading } from './body-sweep.js';

/**
 * Apache mod_reqtimeout's `MinRate`, measured on the wire: a body may take `graceMs`, and one second more for every
 * `bytesPerSecond` bytes it has sent.
 */
export interface MinBodyRate {
  bytesPerSecond: number;
  graceMs: number;
}

/** How a body must keep coming; built once, at the factory. */
export interface BodyPace {
  idleMs: number;
  /** Undefined: no minimum rate. */
  minRate: MinBodyRate | undefined;
  /** The sweep's tick: a limit is noticed at most a tick after it passes. */
  sweepMs: number;
}

export function bodyPace(idleMs: number, minRate: MinBodyRate | undefined): BodyPace {
  // A quarter of the shortest limit, at most a second: a breach is answered soon after it is due, and a second's
  // tick costs nothing noticeable however many bodies are being read.
  const shortest = Math.min(idleMs, minRate?.graceMs ?? Infinity);
  return Object.freeze({ idleMs, minRate: minRate === undefined ? undefined : Object.freeze({ ...minRate }), sweepMs: Math.max(10, Math.min(1000, shortest / 4)) });
}

export const aborted = (cause?: unknown): WebhookError =>
  new WebhookError('BODY_ABORTED', 'The request body was aborted before it was complete.', { cause });

/** The rest of a stalled body may never come: the answer closes the connection instead of waiting for it. */
export function stalled(ms: number): WebhookError {
  return new WebhookError('BODY_TIMEOUT', `The request body stalled: no bytes arrived for ${ms} ms.`, {
    hint: 'Send the body without long pauses, or raise the middleware option bodyTimeoutMs.',
    headers: { connection: 'close' },
  });
}

/** As a stalled body, the rest of a trickling one is not waited for: the answer closes the connection. */
export function tooSlow(rate: MinBodyRate): WebhookError {
  return new WebhookError('BODY_TOO_SLOW', `The request body arrived too slowly: after the first ${rate.graceMs} ms, a body must `
    + `keep coming at ${rate.bytesPerSecond} bytes per second on average.`, {
    hint: 'Send the body at the speed of the connection, or lower the middleware option minBodyRate (false turns it off).',
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
 * A request whose body is being read, looked at by the shared sweep: it ends with `failed()` once if the body stalls,
 * trickles below the minimum rate or its caller goes before it ends, else with `completed()` once the body is in.
 * A class (its fields change at every tick) that the body readers extend, so a call makes one object and its
 * listeners, not a closure per step.
 */
export abstract class RequestWatch implements Reading {
  protected readonly req: IncomingMessage;
  readonly #pace: BodyPace;
  /** The minimum rate, where the request has a socket that counts bytes (a request made up in a test may not). */
  readonly #minRate: MinBodyRate | undefined;
  readonly #startedAt: number;
  readonly #firstByte: number;
  readonly #slot: number;
  #bytesRead: number;
  #lastByte: number;
  #lastTick: number;
  /** Time the body was held back by us (backpressure from a slow disk or parser): it is not the caller's. */
  #heldMs = 0;
  #stopped = false;

  constructor(req: IncomingMessage, pace: BodyPace) {
    this.req = req;
    this.#pace = pace;
    this.#startedAt = this.#lastByte = this.#lastTick = Date.now();
    this.#firstByte = this.#bytesRead = req.socket?.bytesRead ?? 0;
    this.#minRate = typeof req.socket?.bytesRead === 'number' ? pace.minRate : undefined;
    this.#slot = watchBody(pace.sweepMs, this);
    // No 'error' listener: a request emits 'error' only to listeners it has, and every hang-up or failure of the
    // connection also closes it before it is complete. The listeners stay on the request once stopped (they do
    // nothing then): taking them off would cost every call.
    req.on('end', this.#onEnd).on('close', this.#onClose);
  }

  /** The body failed (stalled, too slow, its caller gone): the watch is over. */
  protected abstract failed(error: WebhookError): void;

  /** The body is in; what is left (files still being written) is our work, not the caller's. */
  protected completed(): void {}

  /** Ends the watch early (the reader failed on its own, or needs it no more); idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    unwatchBody(this.#pace.sweepMs, this.#slot, this);
  }

  protected end(error: WebhookError): void {
    this.stop();
    this.failed(error);
  }

  readonly #onEnd = (): void => {
    if (this.#stopped) return;
    this.stop();
    this.completed();
  };

  readonly #onClose = (): void => {
    if (!this.#stopped && !this.req.complete) this.end(aborted());
  };

  tick(now: number): void {
    const read = this.req.socket?.bytesRead ?? 0;
    const held = this.req.isPaused();
    if (read !== this.#bytesRead || held) {
      this.#bytesRead = read;
      this.#lastByte = now;
    }
    if (held) this.#heldMs += now - this.#lastTick;
    this.#lastTick = now;
    const pace = this.#pace;
    if (now - this.#lastByte >= pace.idleMs) {
      this.end(stalled(pace.idleMs));
      return;
    }
    const rate = this.#minRate;
    if (rate === undefined) return;
    // Past the grace, every bytesPerSecond bytes sent buy a second: without a division, bytes sent < rate × time over.
    const over = now - this.#startedAt - this.#heldMs - rate.graceMs;
    if (over > 0 && (read - this.#firstByte) * 1000 < over * rate.bytesPerSecond) this.end(tooSlow(rate));
  }
}

/** A watch that tells callbacks: for the streaming readers (busboy, the inflating body stream). */
class CallbackWatch extends RequestWatch {
  readonly #fail: (error: WebhookError) => void;
  readonly #ended: (() => void) | undefined;

  constructor(req: IncomingMessage, pace: BodyPace, fail: (error: WebhookError) => void, ended: (() => void) | undefined) {
    super(req, pace);
    this.#fail = fail;
    this.#ended = ended;
  }

  protected failed(error: WebhookError): void {
    this.#fail(error);
  }

  protected override completed(): void {
    this.#ended?.();
  }
}

/**
 * Calls `fail` once if the body stalls, trickles below the minimum rate or its caller goes before it ends, else
 * `ended` once the body is in; the returned function ends the watch early.
 */
export function watchRequest(req: IncomingMessage, pace: BodyPace, fail: (error: WebhookError) => void, ended?: () => void): () => void {
  const watch = new CallbackWatch(req, pace, fail, ended);
  return () => { watch.stop(); };
}
