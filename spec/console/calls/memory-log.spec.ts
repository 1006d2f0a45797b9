import { expect } from 'chai';
import { MemoryCallLog } from '../../../lib/console/calls/memory-log.js';
import { callOf, describeCallLogContract } from '../../support/call-log-contract/index.js';

describeCallLogContract('MemoryCallLog', () => Promise.resolve({ log: new MemoryCallLog({ capacity: 10 }), cleanup: () => undefined }));

describe('MemoryCallLog', () => {
  it('keeps 200 calls unless told otherwise', async () => {
    const log = new MemoryCallLog();
    expect(log.capacity).to.equal(200);
    for (let index = 1; index <= 205; index += 1) await log.append(callOf(index));
    const kept = await log.recent();
    expect([kept.length, kept[0]?.callId, kept[199]?.callId]).to.deep.equal([200, 'call-205', 'call-6']);
  });

  it('refuses a capacity that is not a whole number from 1 to 100 000', () => {
    for (const capacity of [0, -1, 1.5, 100_001, Number.NaN, '5' as never]) {
      expect(() => new MemoryCallLog({ capacity }), `capacity ${String(capacity)}`)
        .to.throw(TypeError, 'workflow-webhooks: MemoryCallLog capacity must be a whole number from 1 to 100000.');
    }
    expect(new MemoryCallLog({ capacity: 100_000 }).capacity).to.equal(100_000);
  });
});
