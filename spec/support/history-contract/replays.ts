/**
 * The history contract's cases on replay claims: a call is claimed once unless the claim says `again`, whatever
 * races, a claim that could not start is given back, and the count lives in the store (every instance sees it).
 */
import { expect } from 'chai';
import type { HistoryStore, ReplayClaim } from '../../../lib/core/history.js';
import { historyRecordOf, type HistoryFixture } from './fixture.js';

const outcomes = (claims: readonly ReplayClaim[]): Record<string, number> => {
  const counted: Record<string, number> = {};
  for (const claim of claims) counted[claim.outcome] = (counted[claim.outcome] ?? 0) + 1;
  return counted;
};

async function storeWithOne(fixture: HistoryFixture): Promise<{ store: HistoryStore; id: string }> {
  const store = await fixture.open();
  const record = historyRecordOf(1);
  await store.append([record, historyRecordOf(2)]);
  return { store, id: record.id };
}

export function describeReplayClaims(fixture: HistoryFixture): void {
  describe('claimReplay() and giveBackReplay()', () => {
    it('claims a call once, then only with `again`, counting every replay in the record', async () => {
      const { store, id } = await storeWithOne(fixture);
      expect(await store.claimReplay(id, false)).to.deep.equal({ outcome: 'claimed', replays: 1 });
      expect(await store.claimReplay(id, false)).to.deep.equal({ outcome: 'replayedBefore', replays: 1 });
      expect(await store.claimReplay(id, true)).to.deep.equal({ outcome: 'claimed', replays: 2 });
      expect(await store.claimReplay(id, false)).to.deep.equal({ outcome: 'replayedBefore', replays: 2 });
      expect(await store.get(id)).to.deep.equal({ ...historyRecordOf(1), replays: 2 });
      expect((await store.get(historyRecordOf(2).id))?.replays, 'the other call is not counted').to.equal(0);
    });

    it('claims a call first replayed with `again` as a first replay', async () => {
      const { store, id } = await storeWithOne(fixture);
      expect(await store.claimReplay(id, true)).to.deep.equal({ outcome: 'claimed', replays: 1 });
    });

    it('lets exactly one of 20 racing claims without `again` win', async () => {
      const { store, id } = await storeWithOne(fixture);
      const claims = await Promise.all(Array.from({ length: 20 }, () => store.claimReplay(id, false)));
      expect(outcomes(claims)).to.deep.equal({ claimed: 1, replayedBefore: 19 });
      expect(claims.find((claim) => claim.outcome === 'claimed')).to.deep.equal({ outcome: 'claimed', replays: 1 });
      expect((await store.get(id))?.replays).to.equal(1);
    });

    it('counts each of 20 racing claims with `again`', async () => {
      const { store, id } = await storeWithOne(fixture);
      const claims = await Promise.all(Array.from({ length: 20 }, () => store.claimReplay(id, true)));
      expect(claims.map((claim) => (claim.outcome === 'claimed' ? claim.replays : 0)).sort((a, b) => a - b))
        .to.deep.equal(Array.from({ length: 20 }, (_, index) => index + 1));
      expect((await store.get(id))?.replays).to.equal(20);
    });

    it('makes a call claimable again without `again` once its claim is given back', async () => {
      const { store, id } = await storeWithOne(fixture);
      await store.claimReplay(id, false);
      await store.giveBackReplay(id);
      expect((await store.get(id))?.replays).to.equal(0);
      expect(await store.claimReplay(id, false)).to.deep.equal({ outcome: 'claimed', replays: 1 });
    });

    it('gives back one claim at a time, never below none', async () => {
      const { store, id } = await storeWithOne(fixture);
      await store.claimReplay(id, false);
      await store.claimReplay(id, true);
      await store.giveBackReplay(id);
      expect(await store.claimReplay(id, false)).to.deep.equal({ outcome: 'replayedBefore', replays: 1 });
      await store.giveBackReplay(id);
      await store.giveBackReplay(id);
      expect((await store.get(id))?.replays).to.equal(0);
      expect(await store.claimReplay(id, false)).to.deep.equal({ outcome: 'claimed', replays: 1 });
    });

    it('keeps a call appended again (a batch written twice) once, as first kept, with the replays claimed since', async () => {
      const { store, id } = await storeWithOne(fixture);
      expect(await store.claimReplay(id, false)).to.deep.equal({ outcome: 'claimed', replays: 1 });
      await store.append([{ ...historyRecordOf(1), nodeName: 'written again' }, historyRecordOf(3)]);
      expect(await store.get(id)).to.deep.equal({ ...historyRecordOf(1), replays: 1 });
      expect(await store.claimReplay(id, false)).to.deep.equal({ outcome: 'replayedBefore', replays: 1 });
      const { records } = await store.find({ limit: 10 });
      expect(records.map((record) => record.id)).to.deep.equal([historyRecordOf(3).id, historyRecordOf(2).id, id]);
    });

    it('answers missing for a call it does not hold, and gives back nothing for one', async () => {
      const { store } = await storeWithOne(fixture);
      const absent = historyRecordOf(3).id;
      expect(await store.claimReplay(absent, false)).to.deep.equal({ outcome: 'missing' });
      expect(await store.claimReplay(absent, true)).to.deep.equal({ outcome: 'missing' });
      await store.giveBackReplay(absent);
      expect(await store.get(absent), 'a claim creates no record').to.equal(undefined);
    });

    it('sees on a second store the claims made through the first, and races across both end with one winner', async function () {
      // Only stores several instances share open a second one.
      if (fixture.harness.second === undefined) this.skip();
      const { store, id } = await storeWithOne(fixture);
      const other = await fixture.second(store);
      expect(await store.claimReplay(id, false)).to.deep.equal({ outcome: 'claimed', replays: 1 });
      expect(await other.claimReplay(id, false)).to.deep.equal({ outcome: 'replayedBefore', replays: 1 });
      expect((await other.get(id))?.replays).to.equal(1);
      const second = historyRecordOf(2).id;
      const claims = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : other).claimReplay(second, false)));
      expect(outcomes(claims)).to.deep.equal({ claimed: 1, replayedBefore: 19 });
      await other.giveBackReplay(second);
      expect(await store.claimReplay(second, false)).to.deep.equal({ outcome: 'claimed', replays: 1 });
    });
  });
}
