/**
 * lib/webhooks/run/in-flight.ts: the calls in flight. One shared sweep (only while calls are under way, none without
 * maxRunMs) tells each run started before the cutoff, and only those, that it passed maxRunMs; drain() waits for
 * the calls under way, then stops the rest with 503 SHUTTING_DOWN and releases what they hold.
 */
import { expect } from 'chai';
import { install } from '@sinonjs/fake-timers';
import type { InstalledClock } from '../../support/fake-clock.js';
import type { WebhookError } from '../../../lib/core/errors.js';
import { InFlight, type TrackedCall } from '../../../lib/webhooks/run/in-flight.js';

interface Tracked { inFlight: InFlight<TrackedCall>; overran: TrackedCall[]; stopped: [TrackedCall, WebhookError][]; released: TrackedCall[] }

function tracked(maxRunMs: number): Tracked {
  const overran: TrackedCall[] = [];
  const stopped: Tracked['stopped'] = [];
  const released: TrackedCall[] = [];
  const inFlight: InFlight<TrackedCall> = new InFlight(maxRunMs, {
    overran: (call) => { overran.push(call); },
    stop: (call, reason) => { stopped.push([call, reason]); },
    release: (call) => { released.push(call); inFlight.remove(call); return Promise.resolve(); },
  });
  return { inFlight, overran, stopped, released };
}

describe('the maxRunMs sweep', () => {
  let clock: InstalledClock;
  beforeEach(() => { clock = install({ toFake: ['setInterval', 'clearInterval', 'Date'], now: 1_000_000 }); });
  afterEach(() => { clock.uninstall(); });

  it('tells a run to stop once maxRunMs has passed, not before, and only once', () => {
    const { inFlight, overran } = tracked(100);
    const call = { runStartedAt: Date.now(), inFlightSlot: -1 };
    inFlight.add(call);
    clock.tick(99);
    expect(overran, 'before maxRunMs').to.deep.equal([]);
    clock.tick(1);
    expect(overran).to.deep.equal([call]);
    expect(call.runStartedAt).to.equal(0);
    clock.tick(500);
    expect(overran).to.have.length(1);
  });

  it('is late by at most a quarter of maxRunMs', () => {
    const { inFlight, overran } = tracked(100);
    clock.tick(10);
    const call = { runStartedAt: Date.now(), inFlightSlot: -1 };
    inFlight.add({ runStartedAt: 0, inFlightSlot: -1 });
    clock.tick(5);
    inFlight.add(call);
    clock.tick(95 + 25);
    expect(overran).to.deep.equal([call]);
  });

  it('passes over runs started after the cutoff and calls without a run', () => {
    const { inFlight, overran } = tracked(100);
    const first = { runStartedAt: Date.now(), inFlightSlot: -1 };
    const idle = { runStartedAt: 0, inFlightSlot: -1 };
    inFlight.add(first);
    inFlight.add(idle);
    clock.tick(50);
    const second = { runStartedAt: Date.now(), inFlightSlot: -1 };
    inFlight.add(second);
    clock.tick(50);
    expect(overran).to.deep.equal([first]);
    clock.tick(50);
    expect(overran).to.deep.equal([first, second]);
    clock.tick(1000);
    expect(overran).to.deep.equal([first, second]);
  });

  it('is one timer for all calls, gone at the first tick that finds none, and back with the next call', () => {
    const { inFlight } = tracked(100);
    const calls = [{ runStartedAt: 0, inFlightSlot: -1 }, { runStartedAt: 0, inFlightSlot: -1 }, { runStartedAt: 0, inFlightSlot: -1 }];
    for (const call of calls) inFlight.add(call);
    expect(clock.countTimers()).to.equal(1);
    for (const call of calls) inFlight.remove(call);
    clock.tick(100);
    expect(clock.countTimers()).to.equal(0);
    inFlight.add({ runStartedAt: 0, inFlightSlot: -1 });
    expect(clock.countTimers()).to.equal(1);
  });

  it('has no timer without maxRunMs', () => {
    const { inFlight } = tracked(Infinity);
    inFlight.add({ runStartedAt: Date.now(), inFlightSlot: -1 });
    expect(clock.countTimers()).to.equal(0);
  });
});

describe('draining the calls in flight', () => {
  it('says how many completed, and stops the rest with 503 SHUTTING_DOWN and a retry advice', async () => {
    const { inFlight, stopped, released } = tracked(Infinity);
    const done = { runStartedAt: 1, inFlightSlot: -1 };
    const hung = { runStartedAt: 1, inFlightSlot: -1 };
    inFlight.add(done);
    inFlight.add(hung);
    const draining = inFlight.drain(20);
    expect(inFlight.closing).to.equal(true);
    inFlight.remove(done);
    expect(await draining).to.deep.equal({ completed: 1, aborted: 1 });
    expect(stopped.map(([call]) => call)).to.deep.equal([hung]);
    expect(released).to.deep.equal([hung]);
    const reason = stopped[0]?.[1] as WebhookError;
    expect([reason.code, reason.status]).to.deep.equal(['SHUTTING_DOWN', 503]);
    expect(reason.headers).to.deep.equal({ 'retry-after': '5', connection: 'close' });
    expect(reason.hint).to.match(/Send the call again/);
  });

  it('resolves at once with nothing in flight', async () => {
    const { inFlight, stopped } = tracked(Infinity);
    expect(await inFlight.drain(60_000)).to.deep.equal({ completed: 0, aborted: 0 });
    expect(stopped).to.deep.equal([]);
  });
});
