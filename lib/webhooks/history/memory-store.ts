/**
 * The embedded history store: one process's calls in memory, bounded by count (default 1 000) and age, oldest
 * removed first. Replays are counted here, so a double click in one process runs a call once. A call is kept as its
 * JSON text, as the shared stores keep it: one string per call is a copy no caller can change, made in a fraction of
 * a structured clone's time, and the garbage collector does not walk its insides at every collection.
 */
import type {
  HistoryRecord, HistoryRetention, HistoryStore, HistoryStorePage, HistoryStoreQuery, ReplayClaim,
} from '../../core/history.js';
import { recordMatches } from './matches.js';
import { recordText } from './record-text.js';
import { resolveRetention } from './retention.js';

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
      const kept: Kept = { id: record.id, at: record.at, replays: record.replays, text: recordText(record) };
      let at = this.#records.length;
      while (at > 0 && (this.#records[at - 1] as Kept).id > kept.id) at -= 1;
      this.#records.splice(at, 0, kept);
    }
    this.#prune(Date.now());
    return Promise.resolve();
  }

  get(id: string): Promise<HistoryRecord | undefined> {
    const oldest = Date.now() - this.retention.maxAgeMs;
    const kept = this.#records.find((one) => one.id === id && one.at >= oldest);
    return Promise.resolve(kept === undefined ? undefined : recordOf(kept));
  }

  find(query: HistoryStoreQuery): Promise<HistoryStorePage> {
    const records: HistoryRecord[] = [];
    // A call past its age is never given, whether or not a write has removed it yet.
    const oldest = Date.now() - this.retention.maxAgeMs;
    for (let index = this.#records.length - 1; index >= 0; index -= 1) {
      const kept = this.#records[index] as Kept;
      if (query.before !== undefined && kept.id >= query.before) continue;
      if (kept.at < oldest) continue;
      const record = recordOf(kept);
      if (!recordMatches(record, query)) continue;
      if (records.length === query.limit) return Promise.resolve({ records, next: (records.at(-1) as HistoryRecord).id });
      records.push(record);
    }
    return Promise.resolve({ records });
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
