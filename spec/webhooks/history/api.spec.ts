/**
 * `middleware.history` (api): what a host or the console may ask is checked once (a TypeError naming the field),
 * found calls come newest first, a page at a time with a cursor, and a body value filter judges a sealed call once
 * opened, so it finds the same calls with `encryption` as without. Over HTTP in Express 5 with a MemoryHistoryStore.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { HistoryFilter, WebhookError } from '../../../lib/index.js';
import { hookWorkflow, postJson, startHistoryApp, type HistoryApp } from '../../support/history-app.js';
import { closeAll } from '../../support/close-all.js';

const KEY = randomBytes(32);
const ORDERS = [
  { order: { status: 'paid', total: 42 } },
  { order: { status: 'open', total: '42' } },
  { order: { status: 'paid', total: 7, lines: [{ sku: 'tea' }] } },
  { order: { status: 'void' } },
  { order: { 'status/code': 'odd', status: 'paid' } },
];

describe('the history API', () => {
  let app: HistoryApp | undefined;
  afterEach(() => closeAll(() => app?.close()));

  /** Sends the orders, one a call with request id `order-<index>`, and writes them. */
  async function sendOrders(target: HistoryApp): Promise<void> {
    for (const [index, body] of ORDERS.entries()) await postJson(target.url('orders'), body, { 'x-request-id': `order-${index}` });
    await target.history.flush();
  }

  async function requestIds(filter: HistoryFilter): Promise<string[]> {
    return (await app!.history.find(filter)).entries.map((entry) => entry.requestId);
  }

  describe('checks what it is asked once, with a TypeError naming the field', () => {
    let checked: HistoryApp | undefined;
    before(async () => { checked = await startHistoryApp({ workflows: [hookWorkflow('orders', 'orders')] }); });
    after(() => closeAll(() => checked?.close()));

    for (const [label, filter, message] of [
      ['a field that is no filter', { status: 500 }, 'filter.status is not a filter; filters are workflowId, nodeName, method, code, requestId, replayOf, statusClass, from, to, body.'],
      ['an empty workflowId', { workflowId: '' }, 'filter.workflowId must be a non-empty string of at most 500 characters.'],
      ['a statusClass of 6', { statusClass: 6 }, 'filter.statusClass must be 0 (no answer sent) or 1 to 5.'],
      ['a time given as text', { from: '2026-01-01' }, 'filter.from must be a time in epoch milliseconds.'],
      ['a body pointer without its leading slash', { body: { pointer: 'order/status', equals: 'paid' } }, 'filter.body.pointer must be a JSON pointer of at most 500 characters, such as "/order/status".'],
      ['a body pointer of 501 characters', { body: { pointer: `/${'a'.repeat(500)}`, equals: 1 } }, 'filter.body.pointer must be a JSON pointer of at most 500 characters, such as "/order/status".'],
      ['a body value that is an object', { body: { pointer: '/order', equals: { status: 'paid' } } }, 'filter.body.equals must be a string, number, boolean or null.'],
    ] as const) {
      it(`refuses ${label}`, async () => {
        const refused = await checked!.history.find(filter as unknown as HistoryFilter).then(() => undefined, (error: Error) => error);
        expect(refused).to.be.instanceOf(TypeError);
        expect(refused?.message).to.equal(`workflow-webhooks: history: ${message}`);
      });
    }

    it('refuses a page limit outside 1 to 500 and a cursor that is no earlier page\'s next', async () => {
      for (const limit of [0, 501, 2.5]) {
        const refused = await checked!.history.find({}, { limit }).then(() => undefined, (error: Error) => error);
        expect(refused?.message, `limit ${limit}`).to.equal('workflow-webhooks: history: limit must be a whole number from 1 to 500.');
      }
      expect((await checked!.history.find({}, { limit: 500 })).entries).to.deep.equal([]);
      const cursor = await checked!.history.find({}, { cursor: "' OR 1=1 --" }).then(() => undefined, (error: Error) => error);
      expect(cursor?.message).to.equal('workflow-webhooks: history: cursor must be the `next` of an earlier page.');
    });

    it('refuses a replay that does not say who replays, and a bulk replay\'s rate out of bounds', () => {
      expect(() => checked!.history.replay('000000000-0123456789abcdef', { by: ' ' })).to.throw(TypeError, 'a replay needs by: who replays it (1 to 200 characters).');
      expect(() => checked!.history.replayAll({}, { by: 'ops', perSecond: 0 })).to.throw(TypeError, 'perSecond must be a number above 0, at most 1000.');
      expect(() => checked!.history.replayAll({}, { by: 'ops', concurrency: 65 })).to.throw(TypeError, 'concurrency must be a number above 0, at most 64.');
      expect(() => checked!.history.replayAll({ nope: 1 } as HistoryFilter, { by: 'ops' })).to.throw(TypeError, 'filter.nope is not a filter');
      expect(checked!.history.bulkReplays()).to.deep.equal([]);
    });
  });

  it('finds calls newest first, a page at a time, each once, with the next page\'s cursor until the last', async () => {
    app = await startHistoryApp({ workflows: [hookWorkflow('orders', 'orders')] });
    await sendOrders(app);
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    // At most 5 pages: a cursor that does not move on must fail here, not loop.
    for (let pages = 0; pages < 5 && (pages === 0 || cursor !== undefined); pages += 1) {
      const page = await app.history.find({}, cursor === undefined ? { limit: 2 } : { cursor, limit: 2 });
      sizes.push(page.entries.length);
      seen.push(...page.entries.map((entry) => entry.requestId));
      cursor = page.next;
    }
    expect(sizes).to.deep.equal([2, 2, 1]);
    expect(seen).to.deep.equal(['order-4', 'order-3', 'order-2', 'order-1', 'order-0']);
  });

  it('finds calls by method whatever its case, and opens one by id; an unknown or malformed id is undefined', async () => {
    app = await startHistoryApp({ workflows: [hookWorkflow('orders', 'orders')] });
    await sendOrders(app);
    expect(await requestIds({ method: 'post', requestId: 'order-3' })).to.deep.equal(['order-3']);
    const [newest] = (await app.history.find({}, { limit: 1 })).entries;
    expect((await app.history.get(newest?.id as string))?.requestId).to.equal('order-4');
    expect(await app.history.get('000000000-0123456789abcdef')).to.equal(undefined);
    expect(await app.history.get('../../etc/passwd')).to.equal(undefined);
  });

  for (const sealed of [false, true]) {
    it(`finds calls by a value at a JSON pointer of their body${sealed ? ', sealed with encryption: judged once opened' : ''}`, async () => {
      app = await startHistoryApp({
        workflows: [hookWorkflow('orders', 'orders')],
        history: { bodyBytes: 4096, ...(sealed ? { encryption: { currentKeyId: 'k1', keys: { k1: KEY } } } : {}) },
      });
      await sendOrders(app);
      const raw = JSON.stringify((await app.store.find({ limit: 500 })).records);
      expect(raw.includes('"paid"')).to.equal(!sealed);
      expect(await requestIds({ body: { pointer: '/order/status', equals: 'paid' } })).to.deep.equal(['order-4', 'order-2', 'order-0']);
      expect(await requestIds({ body: { pointer: '/order/total', equals: 42 } })).to.deep.equal(['order-0']);
      expect(await requestIds({ body: { pointer: '/order/total', equals: '42' } })).to.deep.equal(['order-1']);
      expect(await requestIds({ body: { pointer: '/order/lines/0/sku', equals: 'tea' } })).to.deep.equal(['order-2']);
      expect(await requestIds({ body: { pointer: '/order/status~1code', equals: 'odd' } })).to.deep.equal(['order-4']);
      const firstPage = await app.history.find({ body: { pointer: '/order/status', equals: 'paid' } }, { limit: 2 });
      expect(firstPage.entries.map((entry) => entry.requestId)).to.deep.equal(['order-4', 'order-2']);
      const rest = await app.history.find({ body: { pointer: '/order/status', equals: 'paid' } }, { cursor: firstPage.next as string, limit: 2 });
      expect(rest.entries.map((entry) => entry.requestId)).to.deep.equal(['order-0']);
    });
  }

  it('leaves a call sealed with a key history.encryption no longer lists out of a page, and logs it; opening it is HISTORY_UNAVAILABLE naming the key', async () => {
    app = await startHistoryApp({ workflows: [hookWorkflow('orders', 'orders')], history: { encryption: { currentKeyId: 'k1', keys: { k1: KEY } } } });
    await postJson(app.url('orders'), {}, { 'x-request-id': 'under-k1' });
    const [sealed] = await app.kept();
    const { store } = app;
    await app.close();
    const warnings: string[] = [];
    app = await startHistoryApp({
      workflows: [hookWorkflow('orders', 'orders')], history: { store, encryption: { currentKeyId: 'k2', keys: { k2: randomBytes(32) } } },
      middleware: { logger: { error: () => undefined, warn: (_fields, message) => { warnings.push(message ?? ''); } } },
    });
    await postJson(app.url('orders'), {}, { 'x-request-id': 'under-k2' });
    expect((await app.kept()).map((entry) => entry.requestId)).to.deep.equal(['under-k2']);
    expect(warnings).to.deep.equal(['workflow-webhooks: history: a kept call was left out of a page: it does not open']);
    const refused = await app.history.get(sealed?.id as string).then(() => undefined, (error: WebhookError) => error);
    expect(refused?.code).to.equal('HISTORY_UNAVAILABLE');
    expect(refused?.message).to.include('it is sealed with key "k1", which history.encryption does not list');
  });
});
