/**
 * History ids: the arrival time, a count of the calls of that millisecond, then 48 random bits drawn from a pool
 * refilled as it runs out; every id of a burst of calls is its own, across refills, and ids sort as their calls
 * arrived, those of one millisecond as they were kept.
 */
import { expect } from 'chai';
import { HISTORY_ID, firstIdAt, historyId } from '../../../lib/webhooks/history/ids.js';

describe('history ids', () => {
  it('gives every call of a burst its own id, across the random pool\'s refills', () => {
    const at = Date.UTC(2026, 10, 28, 12);
    // 2 000 ids use the 4 KiB pool almost three times over; their random parts alone differ too.
    const ids = Array.from({ length: 2000 }, () => historyId(at));
    for (const id of ids) expect(id).to.match(HISTORY_ID);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(new Set(ids.map((id) => id.slice(14))).size).to.equal(ids.length);
  });

  it('starts with the arrival time as 9 base-36 digits, the count of its millisecond and its random part in hex', () => {
    // Each side of where a digit of the time rolls over, and far in the future.
    const times = [0, 35, 36, 1295, 1296, 1_679_615, 1_679_616, Date.UTC(2026, 10, 29, 3, 40), 36 ** 9 - 1];
    for (const at of times) {
      const id = historyId(at);
      expect(id.slice(0, 10), String(at)).to.equal(`${at.toString(36).padStart(9, '0')}-`);
      expect(id).to.match(HISTORY_ID);
    }
    const at = Date.UTC(2026, 10, 29, 3, 41);
    const counts = Array.from({ length: 300 }, () => historyId(at).slice(10, 14));
    expect(counts.slice(254, 258)).to.deep.equal(['00fe', '00ff', '0100', '0101']);
  });

  it('sorts ids as their calls arrived, each at or after the first id of its time', () => {
    const times = [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, Date.UTC(2026, 5, 1), Date.UTC(2027, 0, 1)];
    const ids = times.map((at) => historyId(at));
    expect([...ids].sort()).to.deep.equal(ids);
    times.forEach((at, index) => expect((ids[index] as string) >= firstIdAt(at)).to.equal(true));
  });

  it('sorts the calls of one millisecond in the order they were kept, though another millisecond\'s came between', () => {
    const at = Date.UTC(2026, 10, 29, 2, 30);
    const ids = [historyId(at), historyId(at), historyId(at + 1), historyId(at), historyId(at + 1)];
    expect([ids[0], ids[1], ids[3], ids[2], ids[4]]).to.deep.equal([...ids].sort());
  });
});
