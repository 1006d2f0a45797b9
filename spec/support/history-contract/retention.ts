/**
 * The history contract's cases on retention: past `maxEntries` the oldest calls go, past `maxAgeMs` the old ones do,
 * and "gone" is judged on the store itself, read directly through the harness (ids and every byte it holds), not
 * through the store's own find().
 */
import { expect } from 'chai';
import type { HistoryRecord, HistoryStore } from '../../../lib/core/history.js';
import { findAll, historyRecordOf, idsOf, newestFirst, type HistoryFixture } from './fixture.js';

/** A record whose request id is found in raw text only where the record (or a trace of it) still is. */
const marked = (index: number, at?: number): HistoryRecord => historyRecordOf(index, { requestId: `kept-call-${index}-end`, ...(at === undefined ? {} : { at }) });

const sorted = (ids: readonly string[]): string[] => [...ids].sort();

async function expectHeldExactly(fixture: HistoryFixture, store: HistoryStore, kept: readonly HistoryRecord[], gone: readonly HistoryRecord[]): Promise<void> {
  expect(sorted(await fixture.harness.rawIds(store)), 'the ids the store holds').to.deep.equal(sorted(idsOf(kept)));
  const raw = await fixture.harness.rawText(store);
  for (const record of kept) expect(raw, 'what the store holds').to.include(record.requestId);
  for (const record of gone) expect(raw, 'what the store holds').to.not.include(record.requestId);
}

export function describeRetention(fixture: HistoryFixture): void {
  describe('retention', () => {
    it('reports the retention it was opened with', async () => {
      const store = await fixture.open({ maxAgeMs: 90_000, maxEntries: 7 });
      expect({ ...store.retention }).to.deep.equal({ maxAgeMs: 90_000, maxEntries: 7 });
    });

    it('keeps only the newest maxEntries calls: the oldest are gone from the store itself', async () => {
      const store = await fixture.open({ maxEntries: 5 });
      const records = Array.from({ length: 8 }, (_, index) => marked(index + 1));
      await store.append(records.slice(0, 4));
      await store.append([records[7], records[4], records[6], records[5]] as HistoryRecord[]);
      const gone = await store.prune();
      expect(gone, 'prune() counts only what it removed itself').to.be.within(0, 3);
      await expectHeldExactly(fixture, store, records.slice(3), records.slice(0, 3));
      expect(idsOf(await findAll(store, { limit: 10 }))).to.deep.equal(newestFirst(records.slice(3)));
      expect(await store.get((records[0] as HistoryRecord).id)).to.equal(undefined);
    });

    it('removes calls older than maxAgeMs from the store itself on prune(), and keeps the fresh ones', async () => {
      const store = await fixture.open({ maxAgeMs: 60_000 });
      const now = Date.now();
      const old = [marked(1, now - 180_000), marked(2, now - 120_000)];
      const fresh = [marked(3, now - 30_000), marked(4, now)];
      await store.append([...old, ...fresh]);
      expect(await store.prune()).to.be.within(0, 2);
      await expectHeldExactly(fixture, store, fresh, old);
      expect(idsOf(await findAll(store, { limit: 10 }))).to.deep.equal(newestFirst(fresh));
    });

    it('never gives back a call past maxAgeMs, prune() or not', async () => {
      const store = await fixture.open({ maxAgeMs: 1000 });
      const expired = [marked(1, Date.now() - 2000), marked(2, Date.now() - 2000)];
      await store.append(expired);
      expect(await findAll(store, { limit: 10 })).to.deep.equal([]);
      expect(await findAll(store, { workflowId: 'wf-orders', limit: 10 })).to.deep.equal([]);
      expect(await store.get((expired[0] as HistoryRecord).id)).to.equal(undefined);
      await store.prune();
      await expectHeldExactly(fixture, store, [], expired);
    });

    it('resolves prune() with how many calls it removed, as of the time given', async () => {
      const store = await fixture.open({ maxAgeMs: 60_000 });
      const now = Date.now();
      const records = [marked(1, now - 40_000), marked(2, now - 20_000), marked(3, now - 10_000), marked(4, now)];
      await store.append(records);
      expect(await store.prune()).to.equal(0);
      expect(await store.prune(now + 45_000)).to.equal(2);
      await expectHeldExactly(fixture, store, records.slice(2), records.slice(0, 2));
      expect(await store.prune(now + 120_000)).to.equal(2);
      expect(await store.prune(now + 120_000)).to.equal(0);
      await expectHeldExactly(fixture, store, [], records);
    });
  });
}
