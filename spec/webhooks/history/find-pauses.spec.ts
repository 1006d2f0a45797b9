/**
 * A find over many large kept calls does not hold the server: where the calls are parsed in this process (memory,
 * Redis), the reading gives the event loop turns, so a call sent while it reads is answered before the page is.
 * On every store, the page is the one the filter asks for.
 */
import { expect } from 'chai';
import { hookWorkflow, startHistoryApp, type HistoryApp } from '../../support/history-app.js';
import { historyStoreKinds } from '../../support/history/stores.js';

const MIB = 1024 * 1024;
/** Calls of about 0.9 MiB each, 60 000 keys wide (slow to parse, as a caller can make a body): a filter only the oldest matches. */
const CALLS = 40;
const KEYS = 60_000;

for (const kind of historyStoreKinds('a find over many large calls beside other calls')) {
  describe(`history finds over many large calls while other calls are answered (Express 5, ${kind.name})`, function () {
    this.timeout(120_000);
    const stores = kind.setup();
    let app: HistoryApp | undefined;

    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('answers a call sent while a find reads 40 kept bodies of 60 000 keys before that find, and finds the one call asked for', async () => {
      app = await startHistoryApp({
        workflows: [hookWorkflow('large', 'large'), hookWorkflow('plain', 'plain')],
        history: { store: await stores.open(), bodyBytes: 2 * MIB },
        executor: () => ({ items: [{ json: { ok: true } }] }),
      });
      const running = app;
      const keys = Array.from({ length: KEYS }, (_, index) => `"k${index}":${index}`).join(',');
      for (let call = 0; call < CALLS; call += 1) {
        const sent = await fetch(running.url('large'), { method: 'POST', body: `{"n":${call},${keys}}`, headers: { 'content-type': 'application/json' } });
        expect(sent.status).to.equal(200);
      }
      await running.history.flush();
      const order: string[] = [];
      const found = running.history.find({ workflowId: 'large', body: { pointer: '/n', equals: 0 } }, { limit: 5 })
        .then((page) => { order.push('found'); return page; });
      const plain = fetch(running.url('plain'), { method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' } })
        .then((answer) => { order.push(`plain answered ${answer.status}`); });
      const [page] = await Promise.all([found, plain]);
      expect(page.entries.map((entry) => entry.workflowId)).to.deep.equal(['large']);
      expect(order).to.deep.equal(['plain answered 200', 'found']);
    });
  });
}
