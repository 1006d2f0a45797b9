/**
 * The history contract's cases for stores several instances share: a second store over the same data sees what the
 * first appended, and a store whose server goes away refuses at once instead of hanging (HISTORY_UNAVAILABLE, the
 * store's failure as its cause), then serves again once the server is back, without being reopened.
 */
import { expect } from 'chai';
import type { WebhookError } from '../../../lib/core/errors.js';
import type { HistoryRecord } from '../../../lib/core/history.js';
import { findAll, historyRecordOf, idsOf, newestFirst, settledWithin, until, type HistoryFixture } from './fixture.js';

export function describeSharedStore(fixture: HistoryFixture): void {
  it('finds on a second store the calls appended through the first, and the other way round', async function () {
    // Only stores several instances share open a second one.
    if (fixture.harness.second === undefined) this.skip();
    const store = await fixture.open();
    const other = await fixture.second(store);
    const first = [historyRecordOf(1), historyRecordOf(3)];
    await store.append(first);
    expect(await other.get(historyRecordOf(3).id)).to.deep.equal(historyRecordOf(3));
    expect(idsOf(await findAll(other, { limit: 10 }))).to.deep.equal(newestFirst(first));
    await other.append([historyRecordOf(2)]);
    expect(idsOf(await findAll(store, { limit: 1 }))).to.deep.equal(newestFirst([...first, historyRecordOf(2)]));
  });
}

/** How a call to a store whose server is down ended within `ms`: the refusal's parts, or 'fulfilled' / 'pending'. */
async function refusalWithin(call: Promise<unknown>, ms: number): Promise<unknown> {
  const outcome = await settledWithin(call, ms);
  if (outcome !== 'rejected') return outcome;
  const refused: Partial<WebhookError> = await call.then(() => ({}), (error: unknown) => error as Partial<WebhookError>);
  return {
    code: refused.code,
    status: refused.status,
    retryAfter: /^[1-9][0-9]*$/.test(refused.headers?.['retry-after'] ?? ''),
    cause: refused.cause instanceof Error,
    hint: typeof refused.hint === 'string' && refused.hint !== '',
  };
}

export function describeOutage(fixture: HistoryFixture): void {
  it('refuses within 10 s while its server is down, as history\'s 503 with Retry-After and a hint, and serves again by itself once it is back', async function () {
    this.timeout(90_000);
    const outage = fixture.harness.outage;
    // Only a store with a server of its own can lose it.
    if (outage === undefined) this.skip();
    const store = await fixture.open();
    const before = historyRecordOf(1);
    await store.append([before]);
    await outage.stop();
    try {
      const calls: [string, Promise<unknown>][] = [
        ['append', store.append([historyRecordOf(2)])],
        ['find', store.find({ limit: 10 })],
        ['get', store.get(before.id)],
        ['claimReplay', store.claimReplay(before.id, false)],
      ];
      const settled = await Promise.all(calls.map(async ([name, call]) => [name, await refusalWithin(call, 10_000)] as const));
      // Not `undefined` or `missing`: a store that cannot answer must not say a call is not there. Each refusal is
      // history's 503 with Retry-After, the store's failure as its cause (for the log) and a hint for the operator.
      const refusal = { code: 'HISTORY_UNAVAILABLE', status: 503, retryAfter: true, cause: true, hint: true };
      expect(Object.fromEntries(settled)).to.deep.equal({ append: refusal, find: refusal, get: refusal, claimReplay: refusal });
    } finally {
      await outage.start();
    }
    let appended: HistoryRecord | undefined;
    let index = 3;
    await until(async () => {
      const record = historyRecordOf(index);
      index += 1;
      await store.append([record]);
      appended = record;
      return true;
    }, 30_000, 'an append after the server came back');
    const back = appended as HistoryRecord;
    expect(await store.get(back.id)).to.deep.equal(back);
    expect(idsOf(await findAll(store, { limit: 50 }))).to.include.members([back.id, before.id]);
    // The claim that was refused while the server was down counted nothing.
    expect(await store.claimReplay(before.id, false)).to.deep.equal({ outcome: 'claimed', replays: 1 });
  });
}
