/**
 * The history contract's cases on keeping records: what is appended comes back by id exactly, whatever its text
 * holds and however large, in clear or sealed, one record or a batch of 500.
 */
import { expect } from 'chai';
import type { HistoryRecord } from '../../../lib/core/history.js';
import { findAll, historyRecordOf, newestFirst, idsOf, type HistoryFixture } from './fixture.js';

/** Text a store's encoding could mangle: other scripts, emoji (outside the BMP), every kind of quote, a backslash. */
const AWKWARD = 'Zürich 東京 🚀 «q» "double" \'single\' `back` \\ ; -- /* */';

export function describeKeepingRecords(fixture: HistoryFixture): void {
  describe('append() and get()', () => {
    it('gives back every field of a record exactly, in clear and sealed', async () => {
      const store = await fixture.open();
      const clear = historyRecordOf(1);
      const sealed = historyRecordOf(2, {
        data: { sealed: { kid: 'key-2026', iv: 'MTIzNDU2Nzg5MDEy', tag: 'dGFnLXRhZy10YWctdGFn', data: 'c2VhbGVkIGJvZHk=' } },
      });
      await store.append([clear, sealed]);
      expect(await store.get(clear.id)).to.deep.equal(clear);
      expect(await store.get(sealed.id)).to.deep.equal(sealed);
    });

    it('gives back a record whose optional fields are absent without adding any', async () => {
      const store = await fixture.open();
      const bare: HistoryRecord = {
        id: historyRecordOf(3).id, at: historyRecordOf(3).at, workflowId: 'wf', nodeName: 'Webhook', method: 'GET',
        path: '/webhook/ping', route: '/webhook/ping', durationMs: 0, requestId: 'req-3', replays: 0,
        data: { clear: { query: {}, headers: {}, params: {}, bodyKept: 'none', bodySize: 0, files: [] } },
      };
      await store.append([bare]);
      expect(await store.get(bare.id)).to.deep.equal(bare);
    });

    it('keeps unicode, quotes, NUL characters and a 100 kB body as they were', async function () {
      this.timeout(20_000);
      const store = await fixture.open();
      // A caller's body and query may hold NUL characters (JSON's \u0000, a query's %00); the fields a store filters
      // by come from the workflow and the request line, which cannot.
      const text = historyRecordOf(4, {
        workflowId: `wf ${AWKWARD}`, nodeName: `Node ${AWKWARD}`, path: `/webhook/${AWKWARD}`, code: 'PAYLOAD_INVALID',
        requestId: `req "4" 'x'`,
        data: {
          clear: {
            query: { q: `a\u0000b ${AWKWARD}` }, headers: { 'x-note': AWKWARD }, params: {}, bodyKept: 'whole',
            body: { [`key ${AWKWARD}`]: `value\u0000${AWKWARD}`, nul: '\u0000', escapes: '\n\t\r\b\f\u001f\u2028' },
            bodyKind: 'json', bodySize: 200, files: [{ property: 'data', fileName: `${AWKWARD}.txt`, mimeType: 'text/plain', size: 1 }],
          },
        },
      });
      const large = historyRecordOf(5, {
        data: { clear: { query: {}, headers: {}, params: {}, bodyKept: 'whole', body: { text: 'x'.repeat(100_000), unicode: '€'.repeat(10_000) }, bodyKind: 'json', bodySize: 130_030, files: [] } },
      });
      await store.append([text, large]);
      expect(await store.get(text.id)).to.deep.equal(text);
      expect(await store.get(large.id)).to.deep.equal(large);
    });

    it('keeps a batch of 500 records appended in one call', async function () {
      this.timeout(20_000);
      const store = await fixture.open();
      const batch = Array.from({ length: 500 }, (_, index) => historyRecordOf(index + 1));
      await store.append(batch);
      expect(idsOf(await findAll(store, { limit: 100 }))).to.deep.equal(newestFirst(batch));
      expect(await store.get(batch[0]?.id ?? '')).to.deep.equal(batch[0]);
      expect(await store.get(batch[499]?.id ?? '')).to.deep.equal(batch[499]);
    });

    it('answers undefined for an id it does not hold', async () => {
      const store = await fixture.open();
      const kept = historyRecordOf(6);
      await store.append([kept]);
      for (const id of [historyRecordOf(7).id, 'not-an-id', '', `' OR '1'='1`, '*', '%']) {
        expect(await store.get(id), id).to.equal(undefined);
      }
      expect(await store.get(kept.id)).to.deep.equal(kept);
    });

    it('keeps what was appended, not what the caller changes afterwards', async () => {
      const store = await fixture.open();
      const appended = historyRecordOf(8);
      await store.append([appended]);
      appended.status = 200;
      (appended.data as { clear: { query: Record<string, unknown> } }).clear.query.page = 'changed';
      const read = await store.get(appended.id);
      expect(read).to.deep.equal(historyRecordOf(8));
      (read as HistoryRecord).workflowId = 'changed too';
      expect(await store.get(appended.id)).to.deep.equal(historyRecordOf(8));
    });

    it('appends an empty batch without complaint', async () => {
      const store = await fixture.open();
      await store.append([]);
      const page = await store.find({ limit: 10 });
      expect([page.records, page.next]).to.deep.equal([[], undefined]);
    });
  });
}
