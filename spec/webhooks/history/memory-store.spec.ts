/**
 * The embedded history store: it keeps the history store contract (spec/support/history-contract/), and checks its
 * retention where it is made, with the memory store's own default count.
 */
import { expect } from 'chai';
import type { HistoryStore } from '../../../lib/core/history.js';
import { MemoryHistoryStore } from '../../../lib/webhooks/history/memory-store.js';
import { findAll, describeHistoryStoreContract } from '../../support/history-contract/index.js';

/**
 * Memory has no database to read "directly": what it holds is exactly what an unfiltered find() lists (it filters
 * nothing on its own), so its raw reads page through find(). It shares no data and has no server to stop.
 */
const everything = (store: HistoryStore): ReturnType<typeof findAll> => findAll(store, { limit: 500 });

describeHistoryStoreContract('MemoryHistoryStore', () => ({
  open: (retention) => Promise.resolve(new MemoryHistoryStore(retention)),
  rawIds: async (store) => (await everything(store)).map((record) => record.id),
  rawText: async (store) => JSON.stringify(await everything(store)),
}));

describe('MemoryHistoryStore', () => {
  it('keeps 1 000 calls for 14 days unless told otherwise', () => {
    expect({ ...new MemoryHistoryStore().retention }).to.deep.equal({ maxEntries: 1000, maxAgeMs: 14 * 24 * 3_600_000 });
    expect({ ...new MemoryHistoryStore({ maxEntries: 3 }).retention }).to.deep.equal({ maxEntries: 3, maxAgeMs: 14 * 24 * 3_600_000 });
  });

  for (const [label, retention, message] of [
    ['maxAgeMs under a second', { maxAgeMs: 999 }, 'MemoryHistoryStore maxAgeMs must be a whole number of milliseconds, 1000 or more.'],
    ['maxAgeMs that is not whole', { maxAgeMs: 1500.5 }, 'MemoryHistoryStore maxAgeMs must be a whole number of milliseconds, 1000 or more.'],
    ['maxEntries of 0', { maxEntries: 0 }, 'MemoryHistoryStore maxEntries must be a whole number, 1 or more.'],
    ['maxEntries as text', { maxEntries: '10' }, 'MemoryHistoryStore maxEntries must be a whole number, 1 or more.'],
  ] as const) {
    it(`refuses ${label}, saying what it takes`, () => {
      expect(() => new MemoryHistoryStore(retention as never)).to.throw(TypeError, `workflow-webhooks: ${message}`);
    });
  }
});
