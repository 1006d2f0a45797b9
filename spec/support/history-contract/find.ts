/**
 * The history contract's cases on finding: newest first whatever the order of appending, `limit`, a cursor that pages
 * through every record exactly once, and each filter but the body's (body-filter.ts), alone and combined, judged
 * against a reading of the filter written here again rather than borrowed from the stores' own.
 */
import { expect } from 'chai';
import type { HistoryFilter, HistoryRecord, HistoryStore } from '../../../lib/core/history.js';
import { firstIdAt } from '../../../lib/webhooks/history/ids.js';
import { findAll, historyRecordOf, idsOf, newestFirst, type HistoryFixture } from './fixture.js';

const STATUSES = [200, 201, 302, 404, 500, undefined, 101, 503, 422] as const;
const METHODS = ['GET', 'POST', 'PUT', 'POST', 'DELETE'] as const;

/** A record with the given fields, those given as undefined left out (as a store gives them back). */
function recordWith(index: number, fields: Partial<HistoryRecord>): HistoryRecord {
  const record: Record<string, unknown> = { ...historyRecordOf(index), ...fields };
  for (const key of Object.keys(record)) if (record[key] === undefined) delete record[key];
  return record as unknown as HistoryRecord;
}

/** 45 calls that differ in every field a filter reads, a sixth of them sealed (a filter that is not the body's is exact on those too). */
export function variedRecords(): HistoryRecord[] {
  const original = historyRecordOf(1000).id;
  return Array.from({ length: 45 }, (_, i) => {
    const status = STATUSES[i % STATUSES.length];
    const failed = status === undefined || status >= 400;
    return recordWith(i + 1, {
      workflowId: i % 3 === 0 ? 'wf-b' : 'wf-a',
      nodeName: i % 2 === 0 ? 'Webhook' : 'Webhook 2',
      method: METHODS[i % METHODS.length],
      status,
      code: failed ? (i % 4 < 2 ? 'WORKFLOW_FAILED' : 'PAYLOAD_INVALID') : undefined,
      requestId: `req-${i % 7}`,
      replayOf: i % 5 === 0 ? original : i % 5 === 1 ? historyRecordOf(2000 + i).id : undefined,
      ...(i % 6 === 5 ? { data: { sealed: { kid: 'k1', iv: 'aXY=', tag: 'dGFn', data: `c2VhbGVk${i}` } } } : {}),
    });
  });
}

/** Appends in three batches, none in order: a store orders by id, not by when a record reached it. */
async function appendShuffled(store: HistoryStore, records: readonly HistoryRecord[]): Promise<void> {
  const batches: HistoryRecord[][] = [[], [], []];
  [...records].reverse().forEach((record, index) => batches[index % 3]?.push(record));
  for (const batch of [batches[1], batches[0], batches[2]]) await store.append(batch ?? []);
}

const classOf = (record: HistoryRecord): number => (record.status === undefined ? 0 : Math.floor(record.status / 100));

export function describeFinding(fixture: HistoryFixture): void {
  describe('find()', () => {
    it('lists newest first, greatest id first, though appended out of order', async () => {
      const store = await fixture.open();
      const records = Array.from({ length: 9 }, (_, index) => historyRecordOf(index + 1));
      // Two calls in the same millisecond: their ids still order them.
      records.push(historyRecordOf(10, { at: (records[8] as HistoryRecord).at }));
      await appendShuffled(store, records);
      const page = await store.find({ limit: 50 });
      expect(idsOf(page.records)).to.deep.equal(newestFirst(records));
      expect(page.next).to.equal(undefined);
    });

    it('gives at most `limit` records, the newest, and a page is full when nothing is filtered', async () => {
      const store = await fixture.open();
      const records = Array.from({ length: 12 }, (_, index) => historyRecordOf(index + 1));
      await appendShuffled(store, records);
      const five = await store.find({ limit: 5 });
      expect(idsOf(five.records)).to.deep.equal(newestFirst(records).slice(0, 5));
      expect(five.next).to.be.a('string');
      expect(idsOf((await store.find({ limit: 1 })).records)).to.deep.equal(newestFirst(records).slice(0, 1));
      const all = await store.find({ limit: 13 });
      expect([idsOf(all.records), all.next]).to.deep.equal([newestFirst(records), undefined]);
    });

    it('pages through 57 records by 10 with `next` as `before`, each record once, and no `next` after the last', async () => {
      const store = await fixture.open();
      const records = Array.from({ length: 57 }, (_, index) => historyRecordOf(index + 1));
      await appendShuffled(store, records);
      const pages: HistoryRecord[][] = [];
      let before: string | undefined;
      do {
        const page = await store.find({ limit: 10, before });
        pages.push(page.records);
        before = page.next;
      } while (before !== undefined && pages.length < 20);
      expect(pages.map((page) => page.length)).to.deep.equal([10, 10, 10, 10, 10, 7]);
      expect(pages.flat().map((record) => record.id)).to.deep.equal(newestFirst(records));
      expect(pages.flat()).to.deep.equal([...records].reverse());
    });

    it('goes on from any id as `before`, one it does not hold too: only older records', async () => {
      const store = await fixture.open();
      const records = Array.from({ length: 20 }, (_, index) => historyRecordOf(index + 1));
      await appendShuffled(store, records);
      const twelfth = records[11] as HistoryRecord;
      expect(idsOf(await findAll(store, { limit: 7, before: twelfth.id }))).to.deep.equal(newestFirst(records.slice(0, 11)));
      // The smallest id of a moment, held by no record: a console cursor "before this time".
      expect(idsOf(await findAll(store, { limit: 7, before: firstIdAt(twelfth.at) }))).to.deep.equal(newestFirst(records.slice(0, 11)));
      expect(await findAll(store, { limit: 7, before: (records[0] as HistoryRecord).id })).to.deep.equal([]);
    });

    describe('filters', () => {
      const records = variedRecords();
      const at = (index: number): number => (records[index] as HistoryRecord).at;
      const original = historyRecordOf(1000).id;
      const cases: [string, HistoryFilter, (record: HistoryRecord) => boolean][] = [
        ['workflowId', { workflowId: 'wf-b' }, (r) => r.workflowId === 'wf-b'],
        ['nodeName', { nodeName: 'Webhook 2' }, (r) => r.nodeName === 'Webhook 2'],
        ['method, in any case', { method: 'post' }, (r) => r.method === 'POST'],
        ['method', { method: 'DELETE' }, (r) => r.method === 'DELETE'],
        ['statusClass 0: no answer went out', { statusClass: 0 }, (r) => r.status === undefined],
        ['statusClass 1', { statusClass: 1 }, (r) => classOf(r) === 1],
        ['statusClass 2', { statusClass: 2 }, (r) => classOf(r) === 2],
        ['statusClass 3', { statusClass: 3 }, (r) => classOf(r) === 3],
        ['statusClass 4', { statusClass: 4 }, (r) => classOf(r) === 4],
        ['statusClass 5', { statusClass: 5 }, (r) => classOf(r) === 5],
        ['code', { code: 'PAYLOAD_INVALID' }, (r) => r.code === 'PAYLOAD_INVALID'],
        ['from, inclusive', { from: at(10) }, (r) => r.at >= at(10)],
        ['to, exclusive', { to: at(20) }, (r) => r.at < at(20)],
        ['from and to', { from: at(10), to: at(20) }, (r) => r.at >= at(10) && r.at < at(20)],
        ['requestId', { requestId: 'req-3' }, (r) => r.requestId === 'req-3'],
        ['replayOf', { replayOf: original }, (r) => r.replayOf === original],
        ['workflowId, statusClass and from', { workflowId: 'wf-a', statusClass: 5, from: at(6) }, (r) => r.workflowId === 'wf-a' && classOf(r) === 5 && r.at >= at(6)],
        ['method and code', { method: 'Post', code: 'WORKFLOW_FAILED' }, (r) => r.method === 'POST' && r.code === 'WORKFLOW_FAILED'],
        ['nodeName, requestId and to', { nodeName: 'Webhook', requestId: 'req-2', to: at(40) }, (r) => r.nodeName === 'Webhook' && r.requestId === 'req-2' && r.at < at(40)],
        ['replayOf and workflowId', { replayOf: original, workflowId: 'wf-a' }, (r) => r.replayOf === original && r.workflowId === 'wf-a'],
      ];

      for (const [label, filter, matches] of cases) {
        it(`finds by ${label}: exactly the records that match, newest first`, async () => {
          const expected = records.filter(matches);
          expect(expected.length, 'the fixture has records on both sides of this filter').to.be.within(1, records.length - 1);
          const store = await fixture.open();
          await appendShuffled(store, records);
          expect(idsOf(await findAll(store, { ...filter, limit: 4 }))).to.deep.equal(newestFirst(expected));
        });
      }

      it('finds nothing for values no record has, patterns included', async () => {
        const store = await fixture.open();
        await appendShuffled(store, records);
        const filters: HistoryFilter[] = [
          { workflowId: 'wf-c' }, { workflowId: 'wf-%' }, { workflowId: 'wf-*' }, { nodeName: 'webhook' }, { code: 'WORKFLOW' },
          { requestId: 'req-?' }, { method: 'PATCH' }, { from: at(44) + 1 }, { to: at(0) }, { replayOf: 'nope' }, { workflowId: "wf-a' OR '1'='1" },
        ];
        for (const filter of filters) expect(await findAll(store, { ...filter, limit: 10 }), JSON.stringify(filter)).to.deep.equal([]);
      });
    });
  });
}
