/**
 * The memory registry's wait entries (lib/webhooks/registry/waits.ts): the maxWaiting and listWaits limit options,
 * entries stored as copies, a put that expects a status, a claim that moves a waiting entry to running once, the
 * waiting list in expiry order, the bound of maxWaiting (expired entries swept first, and reported to listeners).
 */
import { expect } from 'chai';
import type { WaitEntry } from '../../../lib/core/waits.js';
import {
  checkMaxWaiting, checkWaitListLimit, DEFAULT_MAX_WAITING, DEFAULT_WAITS_LISTED, MemoryWaits, tooManyWaiting,
} from '../../../lib/webhooks/registry/waits.js';

const HOUR = 3_600_000;

function entry(waitId: string, extra: Partial<WaitEntry> = {}): WaitEntry {
  return { waitId, status: 'waiting', expiresAt: Date.now() + HOUR, workflowId: 'wf', nodeName: 'Wait', mode: 'production', startedAt: 1, ...extra };
}

describe('memory waits', () => {
  let waits: MemoryWaits;
  afterEach(() => waits?.clear());

  it('take maxWaiting as a positive whole number, 100 000 by default', () => {
    expect(checkMaxWaiting(undefined)).to.equal(DEFAULT_MAX_WAITING).and.equal(100_000);
    expect(checkMaxWaiting(1)).to.equal(1);
    for (const bad of [0, -1, 1.5, '10', null, Number.MAX_SAFE_INTEGER + 1]) expect(() => checkMaxWaiting(bad), String(bad)).to.throw(TypeError);
  });

  it('take a listWaits limit from 1 to 100 000, 1000 by default', () => {
    expect(checkWaitListLimit(undefined)).to.equal(DEFAULT_WAITS_LISTED).and.equal(1000);
    expect(checkWaitListLimit({})).to.equal(1000);
    expect(checkWaitListLimit({ limit: 1 })).to.equal(1);
    expect(checkWaitListLimit({ limit: 100_000 })).to.equal(100_000);
    for (const limit of [0, 100_001, 2.5, '5' as unknown as number]) expect(() => checkWaitListLimit({ limit }), String(limit)).to.throw(TypeError);
  });

  it('refuse a new wait with TOO_MANY_WAITING once full of live entries, but replace a held one', () => {
    expect(tooManyWaiting(3)).to.have.property('code', 'TOO_MANY_WAITING');
    waits = new MemoryWaits(1);
    expect(waits.put(entry('a'))).to.equal(true);
    expect(() => waits.put(entry('b'))).to.throw().with.property('code', 'TOO_MANY_WAITING');
    expect(waits.put(entry('a', { nodeName: 'Again' }))).to.equal(true);
    expect(waits.get('a')?.nodeName).to.equal('Again');
    expect(waits.size).to.equal(1);
  });

  it('sweep expired entries when full, telling listeners of the waiting ones only', () => {
    waits = new MemoryWaits(2);
    const expired: string[] = [];
    waits.onExpired(() => { throw new Error('a failing listener does not stop the sweep'); });
    const stop = waits.onExpired((gone) => expired.push(gone.waitId));
    waits.put(entry('old-waiting', { expiresAt: Date.now() - 1 }));
    waits.put(entry('old-running', { expiresAt: Date.now() - 1, status: 'running' }));
    expect(waits.put(entry('new'))).to.equal(true);
    expect(expired).to.deep.equal(['old-waiting']);
    expect(waits.size).to.equal(1);
    stop();
    waits.put(entry('old-2', { expiresAt: Date.now() - 1 }));
    waits.put(entry('newer'));
    expect(expired).to.deep.equal(['old-waiting']);
  });

  it('store and give back copies, and nothing once expired', () => {
    waits = new MemoryWaits(10);
    const given = entry('a', { state: { n: 1 } });
    waits.put(given);
    (given.state as { n: number }).n = 2;
    const got = waits.get('a');
    expect(got?.state).to.deep.equal({ n: 1 });
    (got!.state as { n: number }).n = 3;
    expect(waits.get('a')?.state).to.deep.equal({ n: 1 });
    waits.put(entry('gone', { expiresAt: Date.now() }));
    expect(waits.get('gone')).to.equal(undefined);
    expect(waits.get('never')).to.equal(undefined);
  });

  it('put with an expected status only over an entry in that status', () => {
    waits = new MemoryWaits(10);
    expect(waits.put(entry('a'), 'running')).to.equal(false);
    expect(waits.get('a')).to.equal(undefined);
    waits.put(entry('a'));
    expect(waits.put(entry('a', { status: 'finished' }), 'running')).to.equal(false);
    expect(waits.put(entry('a', { status: 'finished' }), 'waiting')).to.equal(true);
    expect(waits.get('a')?.status).to.equal('finished');
  });

  it('claim a waiting entry once, moving it to running with its resume time', () => {
    waits = new MemoryWaits(10);
    waits.put(entry('a'));
    const first = waits.claim('a', 42);
    expect(first.claimed).to.equal(true);
    expect(first.entry).to.include({ status: 'running', resumedAt: 42 });
    expect(waits.get('a')).to.include({ status: 'running', resumedAt: 42 });
    const second = waits.claim('a', 43);
    expect(second.claimed).to.equal(false);
    expect(second.entry).to.include({ status: 'running', resumedAt: 42 });
    expect(waits.claim('never', 1)).to.deep.equal({ claimed: false, entry: undefined });
  });

  it('list the live waiting entries, soonest expiry first, ties by id, up to the limit', () => {
    waits = new MemoryWaits(10);
    const at = Date.now() + HOUR;
    waits.put(entry('late', { expiresAt: at + 2 }));
    waits.put(entry('b', { expiresAt: at }));
    waits.put(entry('a', { expiresAt: at }));
    waits.put(entry('soon', { expiresAt: at - 1 }));
    waits.put(entry('busy', { expiresAt: at - 2, status: 'running' }));
    waits.put(entry('dead', { expiresAt: Date.now() - 1 }));
    expect(waits.listWaiting(10).map((e) => e.waitId)).to.deep.equal(['soon', 'a', 'b', 'late']);
    expect(waits.listWaiting(2).map((e) => e.waitId)).to.deep.equal(['soon', 'a']);
  });

  it('hold nothing once cleared', () => {
    waits = new MemoryWaits(10);
    waits.put(entry('a'));
    waits.clear();
    expect(waits.size).to.equal(0);
    expect(waits.get('a')).to.equal(undefined);
  });
});
