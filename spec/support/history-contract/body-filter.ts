/**
 * The history contract's cases on the body filter: a value at a JSON pointer (RFC 6901) of a body kept whole, in
 * clear. Equal means the same JSON type and value; a truncated or absent body matches nothing; a sealed body is one
 * the store cannot read, so it is a candidate the history API judges once opened.
 */
import { expect } from 'chai';
import type { HistoryData, HistoryFilter, HistoryRecord } from '../../../lib/core/history.js';
import { findAll, historyRecordOf, idsOf, newestFirst, type HistoryFixture } from './fixture.js';

function withBody(index: number, body: unknown, kept: HistoryData['bodyKept'] = 'whole', workflowId = 'wf-orders'): HistoryRecord {
  return historyRecordOf(index, {
    workflowId,
    data: { clear: { query: {}, headers: {}, params: {}, bodyKept: kept, ...(kept === 'none' ? {} : { body }), bodyKind: 'json', bodySize: 64, files: [] } },
  });
}

const paid = withBody(1, {
  order: { status: 'paid', total: 12, tags: ['vip', 'eu'] },
  items: [{ sku: 'A-1' }, { sku: 'B-2' }],
  'a/b': 'slash', 'm~n': 'tilde', 'm~1n': 'tilde one', "it's": "o'k", gone: null, flag: true, '': 'empty key',
});
const open = withBody(2, { order: { status: 'open', total: '12', tags: [] }, items: [{ sku: 'B-2' }], flag: 'true', 'a~1b': 'slash' });
/** The start of a body's JSON text, as history keeps a body past its cap: it matches nothing. */
const truncated = withBody(3, '{"order":{"status":"paid","total":12', 'truncated');
/** Even a truncated body that happens to parse matches nothing: what was cut may have changed the answer. */
const truncatedObject = withBody(4, { order: { status: 'paid', total: 12 } }, 'truncated');
const noBody = withBody(5, undefined, 'none');
const list = withBody(6, [{ order: { status: 'paid' } }, 7]);
const text = withBody(7, 'plain text body');
const sealed = historyRecordOf(8, { data: { sealed: { kid: 'k1', iv: 'aXY=', tag: 'dGFn', data: 'b3JkZXIgcGFpZA==' } } });
const sealedElsewhere = historyRecordOf(9, { workflowId: 'wf-other', data: { sealed: { kid: 'k1', iv: 'aXY=', tag: 'dGFn', data: 'b3RoZXI=' } } });
const paidElsewhere = withBody(10, { order: { status: 'paid' } }, 'whole', 'wf-other');
const records = [paid, open, truncated, truncatedObject, noBody, list, text, sealed, sealedElsewhere, paidElsewhere];

/** Every body filter finds the sealed records (other filters permitting) beside the clear ones listed. */
const cases: [string, HistoryFilter['body'] & object, HistoryRecord[], string?][] = [
  ['a nested string', { pointer: '/order/status', equals: 'paid' }, [paid, paidElsewhere]],
  ['a number, not the same digits as a string', { pointer: '/order/total', equals: 12 }, [paid]],
  ['a string, not the same digits as a number', { pointer: '/order/total', equals: '12' }, [open]],
  ['an array element by index', { pointer: '/items/1/sku', equals: 'B-2' }, [paid]],
  ['the first array element', { pointer: '/items/0/sku', equals: 'B-2' }, [open]],
  ['an element of a body that is an array', { pointer: '/0/order/status', equals: 'paid' }, [list]],
  ['a key holding "/" (~1)', { pointer: '/a~1b', equals: 'slash' }, [paid]],
  ['a key holding "~" (~0)', { pointer: '/m~0n', equals: 'tilde' }, [paid]],
  ['a key holding "~1" (~01: ~1 is read before ~0)', { pointer: '/m~01n', equals: 'tilde one' }, [paid]],
  ['a key with a quote', { pointer: "/it's", equals: "o'k" }, [paid]],
  ['the empty key', { pointer: '/', equals: 'empty key' }, [paid]],
  ['true, not the string "true"', { pointer: '/flag', equals: true }, [paid]],
  ['the string "true", not true', { pointer: '/flag', equals: 'true' }, [open]],
  ['null where the body has null, not where it has nothing', { pointer: '/gone', equals: null }, [paid]],
  ['the whole body (the empty pointer)', { pointer: '', equals: 'plain text body' }, [text]],
  ['a path no body has', { pointer: '/order/status/deeper', equals: 'paid' }, []],
  ['an index past the end', { pointer: '/items/5/sku', equals: 'A-1' }, []],
  ['no element for a negative index (JSON pointers count from the start only)', { pointer: '/items/-1/sku', equals: 'B-2' }, []],
  ['no element for an index with a leading zero (RFC 6901 has none)', { pointer: '/items/01/sku', equals: 'B-2' }, []],
  ["an array's length, which is no value of the body", { pointer: '/items/length', equals: 2 }, []],
  ['a value of another type at the path', { pointer: '/order/tags', equals: 'vip' }, []],
];

export function describeBodyFilter(fixture: HistoryFixture): void {
  describe('find() by a value of the body', () => {
    for (const [label, body, clear] of cases) {
      it(`finds ${label}, in clear bodies kept whole, and every sealed one as a candidate`, async () => {
        const store = await fixture.open();
        await store.append(records);
        expect(idsOf(await findAll(store, { body, limit: 3 }))).to.deep.equal(newestFirst([...clear, sealed, sealedElsewhere]));
      });
    }

    it('takes the other filters exactly beside the body filter, sealed records included', async () => {
      const store = await fixture.open();
      await store.append(records);
      const body = { pointer: '/order/status', equals: 'paid' };
      expect(idsOf(await findAll(store, { body, workflowId: 'wf-orders', limit: 2 }))).to.deep.equal(newestFirst([paid, sealed]));
      expect(idsOf(await findAll(store, { body, workflowId: 'wf-other', limit: 2 }))).to.deep.equal(newestFirst([paidElsewhere, sealedElsewhere]));
      expect(idsOf(await findAll(store, { body, workflowId: 'wf-none', limit: 2 }))).to.deep.equal([]);
    });

    it('finds a sealed record by the other filters alone only where they match it', async () => {
      const store = await fixture.open();
      await store.append(records);
      expect(idsOf(await findAll(store, { workflowId: 'wf-other', limit: 5 }))).to.deep.equal(newestFirst([sealedElsewhere, paidElsewhere]));
      expect(idsOf(await findAll(store, { requestId: 'req-9', limit: 5 }))).to.deep.equal([sealedElsewhere.id]);
      expect(await findAll(store, { workflowId: 'wf-orders', requestId: 'req-9', limit: 5 })).to.deep.equal([]);
    });
  });
}
