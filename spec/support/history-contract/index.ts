/**
 * The history store conformance suite: the contract every HistoryStore (lib/core/history.ts) keeps, written once.
 * Each store's spec calls `describeHistoryStoreContract` with its harness, so the memory, Redis and PostgreSQL stores
 * pass the very same tests; the harness reads the store's database directly, so "gone" means gone from the store.
 * The cases live beside this file, one file per part of the contract.
 */
import { describeBodyFilter } from './body-filter.js';
import { historyFixture, type HistoryStoreHarness } from './fixture.js';
import { describeFinding } from './find.js';
import { describeKeepingRecords } from './records.js';
import { describeReplayClaims } from './replays.js';
import { describeRetention } from './retention.js';
import { describeOutage, describeSharedStore } from './shared.js';

export { findAll, historyIdOf, historyRecordOf, type HistoryStoreHarness } from './fixture.js';

/**
 * `harness` is called when a test needs it (a harness is usually made in a `before()` hook), so the cases for shared
 * stores are declared for every store and skip themselves where the harness has no `second` or no `outage`. Every
 * store the suite opens, the second ones included, it closes after the test.
 */
export function describeHistoryStoreContract(name: string, harness: () => HistoryStoreHarness): void {
  describe(`${name} keeps the history store contract`, () => {
    const fixture = historyFixture(harness);
    describeKeepingRecords(fixture);
    describeFinding(fixture);
    describeBodyFilter(fixture);
    describeReplayClaims(fixture);
    describeRetention(fixture);
    describe('several instances', () => {
      describeSharedStore(fixture);
      describeOutage(fixture);
    });
  });
}
