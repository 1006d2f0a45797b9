/**
 * The history writer (HistoryWriter) on fake timers, over a MemoryHistoryStore wrapped to count its appends and to
 * refuse them on demand: calls are written in batches every flushMs; while the store is away they wait (the oldest
 * dropped past maxPending) and are written once it answers, the outage logged once as it starts and once as it ends;
 * close() writes the last batch, and logs what it could not write (a write the store holds unanswered included);
 * the store is pruned every minute with no cron.
 */
import { expect } from 'chai';
import type { WebhookError } from '../../../lib/core/errors.js';
import type { HistoryRecord, HistoryStore } from '../../../lib/core/history.js';
import { MemoryHistoryStore } from '../../../lib/webhooks/history/memory-store.js';
import { HistoryWriter } from '../../../lib/webhooks/history/writer.js';
import { timersArmed, until, withFakeTimers } from '../../support/fake-clock.js';
import { historyRecordOf } from '../../support/history-contract/fixture.js';

/** A memory store that counts appends and prunes, refuses appends while `down`, and holds them unanswered while `hanging`. */
class WatchedStore extends MemoryHistoryStore implements HistoryStore {
  appends: number[] = [];
  prunes = 0;
  down = false;
  hanging = false;
  readonly #held: Array<() => void> = [];

  override append(records: readonly HistoryRecord[]): Promise<void> {
    if (this.down) return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    if (this.hanging) return new Promise((_resolve, reject) => { this.#held.push(() => reject(new Error('socket closed'))); });
    this.appends.push(records.length);
    return super.append(records);
  }

  override prune(now?: number): Promise<number> {
    this.prunes += 1;
    return super.prune(now);
  }

  /** The held appends fail at last, as a connection closed under them would. */
  failHeld(): void {
    for (const fail of this.#held.splice(0)) fail();
  }

  async ids(): Promise<string[]> {
    return (await this.find({ limit: 500 })).records.map((record) => record.id).reverse();
  }
}

interface Logged { fields: Record<string, unknown>; message: string | undefined }

function writerOver(store: HistoryStore, options: { flushMs?: number; maxPending?: number } = {}) {
  const warnings: Logged[] = [];
  const writer = new HistoryWriter({
    store, flushMs: options.flushMs ?? 200, maxPending: options.maxPending ?? 10_000,
    logger: { error: () => undefined, warn: (fields, message) => { warnings.push({ fields, message }); } },
  });
  return { writer, warnings };
}

const records = (count: number, from = 1): HistoryRecord[] => Array.from({ length: count }, (_, index) => historyRecordOf(from + index));
const TIMERS = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] as const;

describe('the history writer', () => {
  it('writes the calls of one flushMs with one append, and none before', () => withFakeTimers(async (clock) => {
    const store = new WatchedStore();
    const { writer } = writerOver(store, { flushMs: 200 });
    for (const record of records(5)) writer.add(record);
    await clock.tickAsync(199);
    expect(store.appends).to.deep.equal([]);
    await clock.tickAsync(1);
    await until(() => store.appends.length > 0, 'the batch written');
    expect(store.appends).to.deep.equal([5]);
    expect(await store.ids()).to.deep.equal(records(5).map((record) => record.id));
    await writer.close(1000);
  }, [...TIMERS]));

  it('keeps the calls while the store refuses them, writes them once it answers, and logs the outage once as it starts and once as it ends', () => withFakeTimers(async (clock) => {
    const store = new WatchedStore();
    store.down = true;
    const { writer, warnings } = writerOver(store, { flushMs: 100 });
    for (const record of records(3)) writer.add(record);
    await clock.tickAsync(100);
    await until(() => warnings.length === 1, 'the outage logged');
    writer.add(historyRecordOf(4));
    // Tried again and again (a bounded backoff) while the store is away: still one line.
    await clock.tickAsync(10_000);
    expect(warnings).to.have.length(1);
    expect(warnings[0]?.message).to.include('the store did not take a batch of calls; they are kept in memory');
    store.down = false;
    await clock.tickAsync(5_000);
    await until(() => warnings.length === 2, 'the recovery logged');
    expect(warnings[1]?.message).to.include('the store takes calls again');
    expect(warnings[1]?.fields).to.deep.include({ dropped: 0 });
    expect(await store.ids()).to.deep.equal(records(4).map((record) => record.id));
    await writer.close(1000);
  }, [...TIMERS]));

  it('drops the oldest calls past maxPending while the store is away, and logs how many', () => withFakeTimers(async (clock) => {
    const store = new WatchedStore();
    store.down = true;
    const { writer, warnings } = writerOver(store, { flushMs: 100, maxPending: 3 });
    for (const record of records(5)) writer.add(record);
    await clock.tickAsync(100);
    await until(() => warnings.length === 1, 'the outage logged');
    store.down = false;
    await clock.tickAsync(5_000);
    await until(() => warnings.length === 2, 'the recovery logged');
    expect(await store.ids()).to.deep.equal(records(3, 3).map((record) => record.id));
    expect(warnings[1]?.fields).to.deep.include({ dropped: 2 });
    expect(warnings[1]?.message).to.include('2 call(s) were dropped meanwhile (history.maxPending)');
    await writer.close(1000);
  }, [...TIMERS]));

  it('drops the oldest calls past maxPending while they wait for their batch, and logs how many once written', () => withFakeTimers(async (clock) => {
    const store = new WatchedStore();
    const { writer, warnings } = writerOver(store, { flushMs: 100, maxPending: 3 });
    for (const record of records(5)) writer.add(record);
    await clock.tickAsync(100);
    await until(() => store.appends.length === 1, 'the batch written');
    expect(await store.ids()).to.deep.equal(records(3, 3).map((record) => record.id));
    expect(warnings.map((warning) => warning.fields.dropped)).to.deep.equal([2]);
    await writer.close(1000);
  }, [...TIMERS]));

  it('writes the last batch on close(), before its timer would', async () => {
    const store = new WatchedStore();
    const { writer } = writerOver(store, { flushMs: 60_000 });
    for (const record of records(2)) writer.add(record);
    await writer.close(1000);
    expect(store.appends).to.deep.equal([2]);
    writer.add(historyRecordOf(3));
    expect(await store.ids()).to.deep.equal(records(2).map((record) => record.id));
  });

  it('logs the calls close() could not write while the store was away', async () => {
    const store = new WatchedStore();
    store.down = true;
    const { writer, warnings } = writerOver(store, { flushMs: 60_000 });
    for (const record of records(2)) writer.add(record);
    await writer.close(1000);
    expect(warnings.map((warning) => warning.message)).to.include('workflow-webhooks: history: 2 call(s) were not written before close()');
  });

  it('counts the calls of a write the store holds unanswered among those close() could not write, and logs nothing more when it fails later', async () => {
    const store = new WatchedStore();
    store.hanging = true;
    const { writer, warnings } = writerOver(store, { flushMs: 60_000 });
    for (const record of records(3)) writer.add(record);
    await writer.close(50);
    expect(warnings.map((warning) => warning.message)).to.deep.equal(['workflow-webhooks: history: 3 call(s) were not written before close()']);
    store.hanging = false;
    store.failHeld();
    // flush() waits for the write under way to settle: its late failure is no outage line, and no new try.
    await writer.flush();
    expect(warnings).to.have.length(1);
    expect(store.appends).to.deep.equal([]);
  });

  it('rejects flush() while the store refuses, and keeps the calls for the next try', async () => {
    const store = new WatchedStore();
    store.down = true;
    const { writer } = writerOver(store, { flushMs: 60_000 });
    writer.add(historyRecordOf(1));
    const refused = await writer.flush().then(() => undefined, (error: WebhookError) => error);
    expect(refused).to.include({ code: 'HISTORY_UNAVAILABLE', status: 503 });
    expect(refused?.message).to.include('The history store did not take the calls');
    store.down = false;
    await writer.flush();
    expect(await store.ids()).to.deep.equal([historyRecordOf(1).id]);
    await writer.close(1000);
  });

  it('prunes the store every minute, with no cron', () => withFakeTimers(async (clock) => {
    const store = new WatchedStore();
    const { writer } = writerOver(store);
    await timersArmed(clock, 1);
    await clock.tickAsync(59_999);
    expect(store.prunes).to.equal(0);
    await clock.tickAsync(1);
    expect(store.prunes).to.equal(1);
    await clock.tickAsync(60_000);
    expect(store.prunes).to.equal(2);
    await writer.close(1000);
  }, [...TIMERS]));
});
