/**
 * The embedded history store: one process's calls in memory, bounded by count (default 1 000) and age, oldest
 * removed first. Replays are counted here, so a double click in one process runs a call once. A call is kept as its
 * JSON text, as the shared stores keep it: one string per call is a copy no caller can change, made in a fraction of
 * a structured clone's time, and the garbage collector does not walk its insides at every collection.
 */
import type {
  HistoryRecord, HistoryRetention, HistoryStore, HistoryStorePage, HistoryStoreQuery, ReplayClaim,
} from '../../core/history.js';
import { recordTest } from './matches.js';
import { recordText } from './record-text.js';
import { resolveRetention } from './retention.js';
import { ScanPauses } from './scan-pauses.js';

/** A kept call: what ordering and retention read, and the rest as JSON text. */
interface Kept {
  id: string;
  at: number;
  replays: number;
  text: string;
}

export class MemoryHistoryStore implements HistoryStore {
  readonly retention: HistoryRetention;
  /** Oldest first (ascending ids): a batch is mostly newer than what is kept, so it is added at the end. */
  readonly #records: Kept[] = [];

  constructor(options: Partial<HistoryRetention> = {}) {
    this.retention = resolveRetention(options, 1_000, 'MemoryHistoryStore');
  }

  append(records: readonly HistoryRecord[]): Promise<void> {
    for (const record of records) {
      let at = this.#records.length;
      while (at > 0 && (this.#records[at - 1] as Kept).id > record.id) at -= 1;
      // One already kept stays as it is (a batch written again), its replays with it.
      if (this.#records[at - 1]?.id === record.id) continue;
      const kept: Kept = { id: record.id, at: record.at, replays: record.replays, text: recordText(record) };
      if (at === this.#records.length) this.#records.push(kept);
      else this.#records.splice(at, 0, kept);
    }
    this.#prune(Date.now());
    return Promise.resolve();
  }

  get(id: string): Promise<HistoryRecord | undefined> {
    const oldest = Date.now() - this.retention.maxAgeMs;
    const kept = this.#records.find((one) => one.id === id && one.at >= oldest);
    return Promise.resolve(kept === undefined ? undefined : recordOf(kept));
  }

  async find(query: HistoryStoreQuery): Promise<HistoryStorePage> {
    const records: HistoryRecord[] = [];
    // A call past its age is never given, whether or not a write has removed it yet.
    const oldest = Date.now() - this.retention.maxAgeMs;
    // The calls as they are now: the reading pauses (each call is parsed here), and writes go on meanwhile.
    const kept = this.#records.slice();
    const pauses = new ScanPauses();
    const matches = recordTest(query);
    for (let index = kept.length - 1; index >= 0; index -= 1) {
      const one = kept[index] as Kept;
      if (query.before !== undefined && one.id >= query.before) continue;
      if (one.at < oldest) continue;
      const record = recordOf(one);
      if (pauses.due()) await pauses.pause();
      if (!matches(record)) continue;
      if (records.length === query.limit) return { records, next: (records.at(-1) as HistoryRecord).id };
      records.push(record);
    }
    return { records };
  }

  claimReplay(id: string, again: boolean): Promise<ReplayClaim> {
    const kept = this.#records.find((one) => one.id === id);
    if (kept === undefined) return Promise.resolve({ outcome: 'missing' });
    if (kept.replays > 0 && !again) return Promise.resolve({ outcome: 'replayedBefore', replays: kept.replays });
    kept.replays += 1;
    return Promise.resolve({ outcome: 'claimed', replays: kept.replays });
  }

  giveBackReplay(id: string): Promise<void> {
    const kept = this.#records.find((one) => one.id === id);
    if (kept !== undefined && kept.replays > 0) kept.replays -= 1;
    return Promise.resolve();
  }

  prune(now = Date.now()): Promise<number> {
    return Promise.resolve(this.#prune(now));
  }

  #prune(now: number): number {
    const oldest = now - this.retention.maxAgeMs;
    let gone = 0;
    while (this.#records.length > 0 && ((this.#records[0] as Kept).at < oldest || this.#records.length > this.retention.maxEntries)) {
      this.#records.shift();
      gone += 1;
    }
    return gone;
  }
}

/** A kept call read back, with the count of its replays the store keeps (it wins over the one in its text). */
function recordOf(kept: Kept): HistoryRecord {
  const record = JSON.parse(kept.text) as HistoryRecord;
  record.replays = kept.replays;
  return record;
}
