/**
 * A kept call's record is made into JSON text once, when it is written, with its body put in as the text it came
 * as (record-text.ts): on every store (memory, Redis, PostgreSQL) the calls kept through the middleware read back
 * with the bodies their callers sent (redacted where they held a secret), are found by their bodies, and keep the
 * body as sent when the workflow changes it while it runs. Any store, not only ours, gets a whole record.
 */
import { expect } from 'chai';
import type { HistoryData, HistoryEntry, HistoryRecord, HistoryStore } from '../../../lib/core/history.js';
import { freezeRecord, recordText } from '../../../lib/webhooks/history/record-text.js';
import { closeAll } from '../../support/close-all.js';
import { until } from '../../support/history-contract/fixture.js';
import { RAW_STORES } from '../../support/history/raw-stores.js';
import { hookWorkflow, postJson, startHistoryApp, type HistoryApp } from '../../support/history-app.js';
import { findService, markNotRun } from '../../support/services.js';

const TOKEN = 'rt-bearer-5ecret-token';
const PLAIN = { order: { id: 1, status: 'paid', lines: [{ sku: 'A-1', qty: 2, price: 12.5 }], note: 'ünïcödé \u2028 "quoted"' } };
const ECHOING = { order: { id: 2, status: 'paid', note: `sent with ${TOKEN}` } };
const NAMED = { order: { id: 3, status: 'paid' }, query: { access_token: 'rt-query-5ecret' } };

for (const kind of RAW_STORES) {
  if (kind.service !== undefined && findService(kind.service) === undefined) {
    markNotRun(`call history on ${kind.name} keeps each body as its JSON text`, kind.service);
    continue;
  }
  describe(`call history on ${kind.name}: a call's body kept as the text it came as`, function () {
    this.timeout(60_000);
    const stores = kind.setup();
    let store: HistoryStore | undefined;
    let app: HistoryApp | undefined;
    afterEach(() => closeAll(() => app?.close()));

    it('reads back every kept body as sent, redacted where it held a secret, and finds calls by their bodies', async () => {
      store = await stores.open();
      app = await startHistoryApp({
        workflows: [hookWorkflow('orders', 'orders')],
        history: { store, bodyBytes: 65_536 },
        // The workflow changes its trigger item's body: what was kept is what the caller sent.
        executor: (run) => {
          const body = run.items[0]?.json.body as { order?: { status?: string } };
          if (body.order !== undefined) body.order.status = 'changed by the workflow';
          return { items: [] };
        },
      });
      const url = app.url('orders');
      await postJson(url, PLAIN);
      await postJson(url, ECHOING, { authorization: `Bearer ${TOKEN}` });
      await postJson(url, NAMED);
      let entries: HistoryEntry[] = [];
      await until(async () => (entries = await (app as HistoryApp).kept()).length === 3, 10_000, 'three calls kept');
      // Calls of one millisecond have ids of one time, in no set order among them: the bodies are compared by order id.
      const orderId = (body: unknown): number => (body as { order: { id: number } }).order.id;
      const bodies = entries.map((entry) => entry.data.body).sort((a, b) => orderId(a) - orderId(b));
      expect(bodies).to.deep.equal([
        PLAIN,
        { order: { id: 2, status: 'paid', note: 'sent with [redacted]' } },
        { order: { id: 3, status: 'paid' }, query: { access_token: '[redacted]' } },
      ]);
      expect(entries.every((entry) => entry.data.bodyKept === 'whole')).to.equal(true);
      const paid = await app.history.find({ body: { pointer: '/order/status', equals: 'paid' } }, { limit: 10 });
      expect(paid.entries.map((entry) => entry.id)).to.deep.equal(entries.map((entry) => entry.id));
      const byNote = await app.history.find({ body: { pointer: '/order/note', equals: PLAIN.order.note } }, { limit: 10 });
      expect(byNote.entries.map((entry) => entry.data.body)).to.deep.equal([PLAIN]);
      expect(await stores.rawText(store)).not.to.include(TOKEN);
    });
  });
}

describe('a kept call\'s record made into text', () => {
  function recordOf(): HistoryRecord {
    return {
      id: 'id-1', at: 1_700_000_000_000, workflowId: 'orders', nodeName: 'Webhook', method: 'POST', path: '/webhook/orders',
      route: '/webhook/orders', durationMs: 1.5, requestId: 'req-1', replays: 0,
      data: { clear: { query: {}, headers: { 'content-type': 'application/json' }, params: {}, bodyKept: 'whole', bodySize: 30, files: [] } },
    };
  }

  const clearOf = (record: HistoryRecord): HistoryData => (record.data as { clear: HistoryData }).clear;

  it('gives any store a whole record: its data, body included, reads as a value, and serialises and clones whole', () => {
    const record = recordOf();
    freezeRecord(record, JSON.stringify(PLAIN));
    const whole = recordOf();
    clearOf(whole).body = PLAIN;
    expect(JSON.parse(recordText(record))).to.deep.equal(whole);
    expect(JSON.parse(JSON.stringify(record))).to.deep.equal(whole);
    expect(structuredClone(record)).to.deep.equal(whole);
    expect(record.data).to.deep.equal(whole.data);
  });

  it('tells the record as changed once its body is replaced', () => {
    const record = recordOf();
    freezeRecord(record, JSON.stringify(PLAIN));
    clearOf(record).body = ECHOING;
    expect(clearOf(JSON.parse(recordText(record)) as HistoryRecord).body).to.deep.equal(ECHOING);
    expect(clearOf(record).body).to.deep.equal(ECHOING);
  });
});
