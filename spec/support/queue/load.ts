/**
 * Webhook calls under load for the queue fault specs: each call carries a unique id (as its request id, so it is
 * the run's callId on the worker, and in its body), a bounded number are in flight, and every call ends in exactly
 * one recorded outcome: an HTTP status, or the connection error that ended it. A call that gets no answer within
 * the limit is recorded as a hang, which every spec counts as a failure.
 */
import { Agent, request } from 'node:http';
import { HOOK_PATH } from './web.js';

export interface Outcome {
  id: string;
  /** The web instance's port the call went to. */
  port: number;
  /** The HTTP status; undefined when the connection failed (error says how) or the call hung. */
  status?: number;
  /** The error body's code (QUEUE_UNAVAILABLE, …). */
  code?: string;
  retryAfter?: string;
  /** ECONNRESET, ECONNREFUSED, HANG, … */
  error?: string;
  /** From sending to the end of the answer. */
  ms: number;
}

/** Calls per web instance share kept-alive connections, like a real sender's pool. */
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** Ends the kept-alive connections, so that the mocha process can exit. */
export function closeConnections(): void {
  agent.destroy();
}

/** One call: POST {"id"} to the hook, with id as the request id. */
export function call(port: number, id: string, hangAfterMs = 15_000): Promise<Outcome> {
  const body = JSON.stringify({ id });
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: Omit<Outcome, 'id' | 'port' | 'ms'>): void => {
      if (done) return;
      done = true;
      resolve({ id, port, ms: Math.round(performance.now() - started), ...outcome });
    };
    const req = request({
      host: '127.0.0.1', port, method: 'POST', path: HOOK_PATH, agent,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-request-id': id },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        let code: string | undefined;
        try { code = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code?: string }).code; } catch { code = undefined; }
        const retryAfter = res.headers['retry-after'];
        finish({ status: res.statusCode, ...(code === undefined ? {} : { code }), ...(retryAfter === undefined ? {} : { retryAfter }) });
      });
      res.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message }));
    });
    req.setTimeout(hangAfterMs, () => {
      finish({ error: 'HANG' });
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message }));
    req.end(body);
  });
}

export interface LoadOptions {
  /** How many calls; ids are `${prefix}-${index}`. */
  total: number;
  prefix: string;
  inFlight: number;
  /** The port the call of this index goes to: lets a spec take a killed instance out of rotation, or hold calls back. */
  target(index: number): number | Promise<number>;
  /** After each answer (the spec's trigger for a fault mid-way). */
  onOutcome?(outcome: Outcome, answered: number): void;
  /** Pause of each lane between its calls: a steady stream rather than a burst. */
  gapMs?: number;
  hangAfterMs?: number;
}

/** Sends `total` calls, at most `inFlight` at once; resolves every outcome, in the order of the ids. */
export async function load(options: LoadOptions): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array<Outcome>(options.total);
  let next = 0;
  let answered = 0;
  const lane = async (): Promise<void> => {
    while (next < options.total) {
      const index = next;
      next += 1;
      const outcome = await call(await options.target(index), `${options.prefix}-${index}`, options.hangAfterMs);
      outcomes[index] = outcome;
      answered += 1;
      options.onOutcome?.(outcome, answered);
      if (options.gapMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.gapMs));
    }
  };
  await Promise.all(Array.from({ length: options.inFlight }, lane));
  return outcomes;
}

/** Calls sent one lane after another until `until()` says so (a stream for as long as a fault lasts). */
export async function stream(options: Omit<LoadOptions, 'total'> & { until(): boolean }): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (!options.until()) {
      const index = next;
      next += 1;
      const outcome = await call(await options.target(index), `${options.prefix}-${index}`, options.hangAfterMs);
      outcomes.push(outcome);
      options.onOutcome?.(outcome, outcomes.length);
      if (options.gapMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.gapMs));
    }
  };
  await Promise.all(Array.from({ length: options.inFlight }, lane));
  return outcomes;
}

/** A one-line tally of outcomes: `200: 4890, 503 QUEUE_UNAVAILABLE: 12, ECONNRESET: 43`. */
export function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const key = outcome.status === undefined ? String(outcome.error) : `${outcome.status}${outcome.code === undefined ? '' : ` ${outcome.code}`}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/**
 * One call after another (each waiting `gapMs` after the last) until one is answered 200 or `limitMs` passed: how a
 * sender retrying a 503 sees a service come back. Resolves every outcome; the last is the 200 when there was one.
 */
export async function callUntilAccepted(port: number, prefix: string, limitMs: number, gapMs = 200): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    const outcome = await call(port, `${prefix}-${outcomes.length}`);
    outcomes.push(outcome);
    if (outcome.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return outcomes;
}
