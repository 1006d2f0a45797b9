import { expect } from 'chai';
import { GCProfiler } from 'node:v8';
import { SlotSet } from '../../lib/core/slot-set.js';

describe('SlotSet', () => {
  it('holds what was added until it is deleted from its own slot', () => {
    const set = new SlotSet<{ name: string }>();
    const a = { name: 'a' };
    const b = { name: 'b' };
    const slotA = set.add(a);
    const slotB = set.add(b);
    expect(set.size).to.equal(2);
    expect(set.has(slotA, a)).to.equal(true);
    expect(set.has(slotA, b), 'a member is found in its own slot only').to.equal(false);
    expect(set.delete(slotA, a)).to.equal(true);
    expect(set.delete(slotA, a), 'deleting twice').to.equal(false);
    expect(set.size).to.equal(1);
    expect(set.members()).to.deep.equal([b]);
    expect(set.has(slotB, b)).to.equal(true);
  });

  it('reuses a freed slot, and a stale slot never removes the member that took it', () => {
    const set = new SlotSet<{ name: string }>();
    const a = { name: 'a' };
    const slot = set.add(a);
    set.delete(slot, a);
    const c = { name: 'c' };
    expect(set.add(c)).to.equal(slot);
    expect(set.delete(slot, a)).to.equal(false);
    expect(set.members()).to.deep.equal([c]);
  });

  it('visits every member, and a member may leave while it is visited', () => {
    const set = new SlotSet<{ name: string; slot: number }>();
    const members = ['a', 'b', 'c'].map((name) => ({ name, slot: -1 }));
    for (const member of members) member.slot = set.add(member);
    const visited: string[] = [];
    set.forEach((member) => {
      visited.push(member.name);
      set.delete(member.slot, member);
    });
    expect(visited).to.deep.equal(['a', 'b', 'c']);
    expect(set.size).to.equal(0);
    expect(set.members()).to.deep.equal([]);
  });

  it('lets members that left die young, however many pass through (400 000 here)', function () {
    // A long-lived Set churned like this promotes every member it ever held (hundreds of KB per young-generation
    // collection, with mark-compacts to sweep them): what the in-flight calls did before they moved to slots.
    this.timeout(20_000);
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc === undefined) throw new Error('mocha must run with --expose-gc (package.json "node-option")');
    const set = new SlotSet<{ slot: number; payload: number[] }>();
    const warm = { slot: -1, payload: [] };
    for (let index = 0; index < 10_000; index += 1) set.delete(set.add(warm), warm);
    gc();
    gc();
    const profiler = new GCProfiler();
    profiler.start();
    const live: { slot: number; payload: number[] }[] = [];
    for (let index = 0; index < 400_000; index += 1) {
      const member = { slot: -1, payload: new Array<number>(20).fill(index) };
      member.slot = set.add(member);
      live.push(member);
      if (live.length > 10) {
        const left = live.shift() as { slot: number; payload: number[] };
        set.delete(left.slot, left);
      }
    }
    const collections = profiler.stop().statistics.filter((gcRun) => gcRun.gcType === 'Scavenge');
    const oldSpace = (side: (typeof collections)[number]['beforeGC']): number =>
      side.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;
    const promoted = collections.reduce((sum, gcRun) => sum + oldSpace(gcRun.afterGC) - oldSpace(gcRun.beforeGC), 0);
    expect(collections.length, 'young-generation collections during the churn').to.be.greaterThan(2);
    expect(promoted / collections.length, 'bytes promoted per young-generation collection').to.be.below(4096);
  });
});
