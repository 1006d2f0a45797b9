/**
 * The console's one server-sent event stream: every open page gets new calls, listen changes, the countdown and
 * job changes as they happen. A comment line every 20 s keeps proxies from closing a quiet stream; a stream whose
 * page went away is dropped at once.
 */
import type { ServerResponse } from 'node:http';
import type { ConsoleEvent } from '../protocol.js';
import { guardHeaders } from './answer.js';

const HEARTBEAT_MS = 20_000;

export class EventStreams {
  readonly #streams = new Set<ServerResponse>();
  #heartbeat: NodeJS.Timeout | undefined;

  get size(): number {
    return this.#streams.size;
  }

  /** Opens a stream on `res`; `first` are sent before anything else (the state a page opening now must see). */
  open(res: ServerResponse, first: readonly ConsoleEvent[] = []): void {
    writeStreamHead(res, { connection: 'keep-alive' });
    res.write(': connected\n\n');
    for (const event of first) res.write(encode(event));
    this.#streams.add(res);
    res.once('close', () => {
      this.#streams.delete(res);
      if (this.#streams.size === 0) this.#stopHeartbeat();
    });
    this.#heartbeat ??= setInterval(() => {
      for (const stream of this.#streams) stream.write(': still here\n\n');
    }, HEARTBEAT_MS).unref();
  }

  /**
   * A HEAD request: the headers a stream would start with, and the answer ends there. A stream opened for it
   * would never end, since a HEAD answer carries no events, and the client would wait for it forever.
   */
  head(res: ServerResponse): void {
    // No `Connection: keep-alive` here: the answer is over, and a client that asked to close must see it close.
    writeStreamHead(res, {});
    res.end();
  }

  broadcast(event: ConsoleEvent): void {
    if (this.#streams.size === 0) return;
    const text = encode(event);
    for (const stream of this.#streams) stream.write(text);
  }

  /** Ends every stream (the console is closing); pages reconnect to whichever instance serves them next. */
  close(): void {
    this.#stopHeartbeat();
    for (const stream of this.#streams) stream.end();
    this.#streams.clear();
  }

  #stopHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

function writeStreamHead(res: ServerResponse, extra: Record<string, string>): void {
  guardHeaders(res);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    // A proxy that buffers would hold the countdown back.
    'x-accel-buffering': 'no',
    ...extra,
  });
}

function encode(event: ConsoleEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
