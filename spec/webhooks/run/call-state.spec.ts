/**
 * lib/webhooks/run/call-state.ts: one call's state from its arrival to its `responded` event: whether the caller was
 * answered, a hang-up stopping the run through its signal, the `responded` event (once, after the connection is done
 * and the run over), leaving the in-flight set once the files are gone too, and which failures are only the run
 * obeying the middleware's stop (stoppedByMiddleware).
 */
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { WebhookError } from '../../../lib/core/errors.js';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookEvent } from '../../../lib/index.js';
import { until } from '../../support/fake-clock.js';
import type { CallEvents, EventInput } from '../../../lib/core/events.js';
import type { InFlight } from '../../../lib/webhooks/run/in-flight.js';
import { noCleanup } from '../../../lib/webhooks/payload/index.js';
import { deferred, workflow } from '../../support/workflows.js';
import {
  afterRun, answered, CallState, endFiles, endRun, releaseFiles, runTooLong, stoppedByMiddleware, stopRun,
  watchClose,
} from '../../../lib/webhooks/run/call-state.js';

/** The parts of a response the state reads. */
class FakeResponse extends EventEmitter {
  headersSent = false;
  statusCode = 200;
  writableFinished = false;

  /** The connection is done: after the whole answer (`finished`), or cut before it. */
  close(finished: boolean): void {
    this.writableFinished = finished;
    this.emit('close');
  }
}

interface Call { state: CallState; res: FakeResponse; heard: EventInput[]; removed: CallState[] }

function newCall(options: { listening?: boolean } = {}): Call {
  const heard: EventInput[] = [];
  const removed: CallState[] = [];
  const events: CallEvents = { active: options.listening ?? true, emit: (event) => { heard.push(event); }, within: (work) => work() };
  const inFlight = { add: () => undefined, remove: (call: CallState) => { removed.push(call); } } as unknown as InFlight<CallState>;
  const state = new CallState('call-1', events, inFlight);
  const res = new FakeResponse();
  watchClose(res as unknown as ServerResponse, state);
  return { state, res, heard, removed };
}

const responded = (call: Call): EventInput[] => call.heard.filter((event) => event.type === 'responded');
const shutdown = (): WebhookError => new WebhookError('SHUTTING_DOWN', 'stopped');

describe('whether a caller was answered', () => {
  it('follows the response while it is open', () => {
    const { state, res } = newCall();
    expect(answered(state)).to.equal(false);
    res.headersSent = true;
    expect(answered(state)).to.equal(true);
  });

  it('remembers, once the connection is done, whether anything was sent', () => {
    const sent = newCall();
    sent.res.headersSent = true;
    sent.res.close(true);
    expect(answered(sent.state)).to.equal(true);
    const cut = newCall();
    cut.res.close(false);
    expect(answered(cut.state)).to.equal(false);
  });
});

describe('the responded event', () => {
  it('comes once the connection is done and the run over, with what was sent, and only once', () => {
    const call = newCall();
    call.res.headersSent = true;
    call.res.statusCode = 201;
    call.res.close(true);
    expect(responded(call), 'before the run is over').to.deep.equal([]);
    endRun(call.state);
    expect(responded(call)).to.deep.equal([{ type: 'responded', status: 201, completed: true }]);
    endFiles(call.state);
    endRun(call.state);
    expect(responded(call)).to.have.length(1);
  });

  it('waits for the connection when the run ends first', () => {
    const call = newCall();
    endRun(call.state);
    endFiles(call.state);
    expect(responded(call), 'before the connection is done').to.deep.equal([]);
    call.res.close(false);
    expect(responded(call)).to.deep.equal([{ type: 'responded', status: undefined, completed: false }]);
  });

  it('is not built for a call nobody listens to', () => {
    const call = newCall({ listening: false });
    call.res.close(true);
    endRun(call.state);
    expect(call.heard).to.deep.equal([]);
  });

  it('comes as soon as a run is told to stop, not when it settles', () => {
    const call = newCall();
    call.state.executing = true;
    call.res.close(true);
    stopRun(call.state, shutdown());
    expect(responded(call)).to.have.length(1);
  });
});

describe('the in-flight set', () => {
  it('keeps a call until its connection is done, its run over and its files gone', () => {
    const call = newCall();
    call.res.close(true);
    endRun(call.state);
    expect(call.removed, 'files still there').to.deep.equal([]);
    endFiles(call.state);
    expect(call.removed).to.deep.equal([call.state]);
  });

  it('keeps a call whose files are gone while its run goes on', () => {
    const call = newCall();
    call.res.close(true);
    endFiles(call.state);
    expect(call.removed).to.deep.equal([]);
  });
});

describe('a caller that hangs up', () => {
  it('stops the running run through its signal, with BODY_ABORTED', () => {
    const call = newCall();
    const signal = call.state.signal;
    call.state.executing = true;
    call.res.close(false);
    expect(signal.aborted).to.equal(true);
    expect((signal.reason as WebhookError).code).to.equal('BODY_ABORTED');
    expect((signal.reason as WebhookError).message).to.equal('The caller closed the connection.');
    expect(call.state.stopReason).to.equal(signal.reason);
    expect(responded(call)).to.have.length(1);
  });

  it('before its run started: stops nothing yet, and the run started later finds its signal aborted', () => {
    const call = newCall();
    call.res.close(false);
    expect(call.state.stopReason).to.equal(undefined);
    expect(responded(call), 'the run is not over').to.deep.equal([]);
    const signal = call.state.signal;
    expect(signal.aborted).to.equal(true);
    expect((signal.reason as WebhookError).code).to.equal('BODY_ABORTED');
    expect(call.state.stopReason).to.equal(signal.reason);
  });

  it('is not told again: a hung-up caller has nobody to answer', () => {
    const call = newCall();
    const told: WebhookError[] = [];
    call.state.onStop = (reason) => told.push(reason);
    call.state.executing = true;
    stopRun(call.state, new WebhookError('BODY_ABORTED', 'gone'));
    expect(told).to.deep.equal([]);
  });

  it('a finished answer is no hang-up: the signal stays quiet', () => {
    const call = newCall();
    const signal = call.state.signal;
    call.state.executing = true;
    call.res.close(true);
    expect(signal.aborted).to.equal(false);
  });
});

describe('stopping a run', () => {
  it('aborts the signal with the first reason, and answers a waiting caller with it', () => {
    const call = newCall();
    const told: WebhookError[] = [];
    call.state.onStop = (reason) => told.push(reason);
    const first = shutdown();
    const second = runTooLong(100);
    call.state.stop(first);
    call.state.stop(second);
    expect(call.state.signal.reason).to.equal(first);
    expect(call.state.stopReason).to.equal(first);
    expect(told[0]).to.equal(first);
  });

  it('past maxRunMs says WORKFLOW_TIMEOUT, the limit, and what to do', () => {
    const error = runTooLong(250);
    expect([error.code, error.message]).to.deep.equal(['WORKFLOW_TIMEOUT', 'The run did not finish within maxRunMs (250 ms) and was told to stop.']);
    expect(error.hint).to.match(/run\.signal is aborted/);
  });
});

describe('a failure that only obeys the stop (stoppedByMiddleware)', () => {
  const stopped = (reason?: WebhookError): CallState => {
    const { state } = newCall();
    if (reason !== undefined) stopRun(state, reason);
    return state;
  };
  const chain = (depth: number, end: unknown): unknown => {
    let error = end;
    for (let index = 0; index < depth; index += 1) error = new Error(`link ${index}`, { cause: error });
    return error;
  };

  it('is the stop reason itself, or an error caused by it', () => {
    const reason = shutdown();
    expect(stoppedByMiddleware(stopped(reason), reason)).to.equal(true);
    expect(stoppedByMiddleware(stopped(reason), chain(3, reason))).to.equal(true);
  });

  it('follows the causes eight links deep, not further', () => {
    const reason = shutdown();
    expect(stoppedByMiddleware(stopped(reason), chain(7, reason)), 'eighth link').to.equal(true);
    expect(stoppedByMiddleware(stopped(reason), chain(8, reason)), 'ninth link').to.equal(false);
  });

  it('is an AbortError, as fetch and timers throw on an aborted signal, or one caused by it', () => {
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(stoppedByMiddleware(stopped(shutdown()), abort)).to.equal(true);
    expect(stoppedByMiddleware(stopped(shutdown()), chain(2, abort))).to.equal(true);
  });

  it('is not an unrelated error, whatever its causes end with', () => {
    const state = stopped(shutdown());
    expect(stoppedByMiddleware(state, new Error('the database is gone'))).to.equal(false);
    expect(stoppedByMiddleware(state, new Error('null cause', { cause: null }))).to.equal(false);
    expect(stoppedByMiddleware(state, chain(2, 'a string'))).to.equal(false);
    expect(stoppedByMiddleware(state, shutdown()), 'another error of the same code').to.equal(false);
  });

  it('is nothing when the run was never told to stop, not even an AbortError', () => {
    expect(stoppedByMiddleware(stopped(), new DOMException('aborted', 'AbortError'))).to.equal(false);
  });
});

describe('after a run', () => {
  it('removes the call\'s temp files, and only then are its files gone', async () => {
    const call = newCall();
    call.res.close(true);
    let cleanups = 0;
    const removed = deferred();
    afterRun(Promise.resolve(), call.state, { cleanup: () => { cleanups += 1; return removed.promise; } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(cleanups).to.equal(1);
    expect(call.state.runOver).to.equal(true);
    expect(call.removed, 'files still there').to.deep.equal([]);
    removed.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(call.removed).to.deep.equal([call.state]);
  });

  it('ends a call without temp files whether the run failed or never started', async () => {
    for (const settled of [Promise.reject(new Error('failed')), undefined]) {
      const call = newCall();
      call.res.close(true);
      afterRun(settled, call.state, { cleanup: noCleanup });
      await new Promise((resolve) => setImmediate(resolve));
      expect(call.removed).to.deep.equal([call.state]);
    }
  });

  it('releaseFiles removes the files now, with or without a release', async () => {
    const call = newCall();
    let released = 0;
    call.state.release = () => { released += 1; return Promise.resolve(); };
    await releaseFiles(call.state);
    expect([released, call.state.filesGone]).to.deep.equal([1, true]);
    const bare = newCall();
    await releaseFiles(bare.state);
    expect(bare.state.filesGone).to.equal(true);
  });
});

/** The same on real connections (the specs above hand-build the response): calls pipelined on one node:http connection. */
describe('the responded event on a real node:http server, calls pipelined on one connection', () => {
  it('comes once for each call, when its own answer is out, with its status and completed', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'in', httpMethod: 'GET', responseMode: 'lastNode' }));
    const events: WebhookEvent[] = [];
    const middleware = createWebhookMiddleware(registry, () => ({ items: [{ json: { ok: true } }] }), { publicUrl: 'https://hooks.example.com', onEvent: (event) => { events.push(event); } });
    const server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      socket.resume();
      socket.write('GET /webhook/in HTTP/1.1\r\nHost: x\r\n\r\nGET /webhook/in HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await new Promise((resolve) => socket.on('close', resolve));
      const of = (type: string) => events.filter((event) => event.type === type) as (WebhookEvent & { callId: string; status?: number; completed?: boolean })[];
      await until(() => of('responded').length === 2, 'both calls responded');
      expect(of('responded').map((event) => [event.callId, event.status, event.completed])).to.deep.equal(of('received').map((event) => [event.callId, 200, true]));
      expect(new Set(of('responded').map((event) => event.callId)).size).to.equal(2);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
