/**
 * The history writer under more calls than one batch holds (found by `npm run bench -- history`): a full batch
 * waiting is written as soon as the one before it is, so an instance keeps calls at its store's pace, not at one
 * batch (500 calls) per flushMs; calls fewer than a batch still wait for flushMs. On fake timers.
 */
import { expect } from 'chai';
import type { HistoryRecord } from '../../../lib/core/history.js';
import { MemoryHistoryStore } from '../../../lib/webhooks/history/memory-store.js';
import { HistoryWriter } from '../../../lib/webhooks/history/writer.js';
import { until, withFakeTimers } from '../../support/fake-clock.js';
import { historyRecordOf } from '../../support/history-contract/fixture.js';

/** A memory store with room for every call of the spec, that counts each append's calls. */
class CountedStore extends MemoryHistoryStore {
  appends: number[] = [];

  constructor() {
    super({ maxEntries: 10_000 });
  }

  override append(records: readonly HistoryRecord[]): Promise<void> {
    this.appends.push(records.length);
    return super.append(records);
  }
}

const quiet = { error: () => undefined, warn: () => undefined };

describe('the history writer with a backlog', () => {
  it('writes full batches back to back, without waiting flushMs between them, and the rest after flushMs', () => withFakeTimers(async (clock) => {
    const store = new CountedStore();
    const writer = new HistoryWriter({ store, flushMs: 200, maxPending: 10_000, logger: quiet });
    for (let index = 1; index <= 1200; index += 1) writer.add(historyRecordOf(index));
    await clock.tickAsync(200);
    await until(() => store.appends.length >= 1, 'the first batch written');
    // Less than another flushMs: the second full batch must not wait for it.
    await clock.tickAsync(199);
    await until(() => store.appends.length >= 2, 'the second full batch written before another flushMs passed', 500);
    expect(store.appends).to.deep.equal([500, 500]);
    await clock.tickAsync(200);
    await until(() => store.appends.length >= 3, 'the last, partial batch written after flushMs');
    expect(store.appends).to.deep.equal([500, 500, 200]);
    expect((await store.find({ limit: 2000 })).records).to.have.length(1200);
    await writer.close(1000);
  }, ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval']));
});
