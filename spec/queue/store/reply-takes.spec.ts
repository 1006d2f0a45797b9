/**
 * Stored replies named on a reply channel are read a batch at a time: anyone who may publish on the channel can name
 * replies, and a flood of names must cost the web instance a read in flight and a batch waiting, never a statement
 * each; past its bound a name is dropped (its call looks at its job), and a failed read loses its batch, told once.
 */
import { expect } from 'chai';
import { ReplyTakes } from '../../../lib/queue/store/reply-takes.js';

/** A store whose reads the spec lets end one at a time, counting them and how many ran at once. */
function slowStore(stored: ReadonlyMap<string, string>) {
  const reads: string[][] = [];
  let inFlight = 0;
  let mostAtOnce = 0;
  const ends: Array<() => void> = [];
  const takeMany = async (names: readonly string[]): Promise<ReadonlyMap<string, string>> => {
    reads.push([...names]);
    inFlight += 1;
    mostAtOnce = Math.max(mostAtOnce, inFlight);
    await new Promise<void>((resolve) => { ends.push(resolve); });
    inFlight -= 1;
    return new Map(names.filter((name) => stored.has(name)).map((name) => [name, stored.get(name) as string]));
  };
  return {
    takeMany, reads, get mostAtOnce() { return mostAtOnce; },
    /** Ends the reads under way until none is left. */
    async drain(): Promise<void> {
      while (ends.length > 0 || inFlight > 0) {
        ends.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

describe('stored replies named on a reply channel', () => {
  it('are read in a few batches, one read at a time, however many names come at once, each answered with its own text', async () => {
    const store = slowStore(new Map([['real-1', 'first'], ['real-2', 'second']]));
    const takes = new ReplyTakes(store.takeMany, () => undefined);
    const forged = Array.from({ length: 1500 }, (_, index) => takes.take(`forged-${index}`));
    const real = [takes.take('real-1'), takes.take('real-2'), takes.take('real-1')];
    await store.drain();
    expect(await Promise.all(real)).to.deep.equal(['first', 'second', 'first']);
    expect((await Promise.all(forged)).every((text) => text === undefined)).to.equal(true);
    // The first name alone, then the 1 500 + 2 that came meanwhile in batches of 500.
    expect(store.reads.map((names) => names.length)).to.deep.equal([1, 500, 500, 500, 1]);
    expect(store.mostAtOnce).to.equal(1);
  });

  it('drops a name past 2 000 waiting (its call looks at its job), and takes names again once the line is read', async () => {
    const store = slowStore(new Map([['late', 'kept']]));
    const takes = new ReplyTakes(store.takeMany, () => undefined);
    const flood = Array.from({ length: 2001 }, (_, index) => takes.take(`forged-${index}`));
    const dropped = takes.take('late');
    await store.drain();
    await Promise.all(flood);
    expect(await dropped).to.equal(undefined);
    expect(store.reads.flat()).to.not.include('late');
    const again = takes.take('late');
    await store.drain();
    expect(await again).to.equal('kept');
  });

  it('answers the names of a read that failed as gone, tells the failure, and reads the next names', async () => {
    const told: unknown[] = [];
    let fail = true;
    const takes = new ReplyTakes(async (names) => {
      if (fail) { fail = false; throw new Error('store away'); }
      return new Map(names.map((name) => [name, `text of ${name}`]));
    }, (error) => { told.push((error as Error).message); });
    expect(await takes.take('a')).to.equal(undefined);
    expect(await takes.take('b')).to.equal('text of b');
    expect(told).to.deep.equal(['store away']);
  });
});
