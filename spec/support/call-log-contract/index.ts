/**
 * The call log conformance suite: the contract every recent-calls store keeps (newest first, bounded by its
 * capacity, heard by its subscribers), written once. Each store's spec calls `describeCallLogContract` with a
 * factory, so MemoryCallLog and RedisCallLog pass the very same tests; a store several instances share adds a second
 * log over the same store, and the suite checks that each hears and lists the other's calls.
 */
import { expect } from 'chai';
import type { CallLog, CallRecord } from '../../../lib/console/calls/contract.js';

export interface MadeCallLog {
  /** A log over an empty store; the suite reads its `capacity`, which should be small (10 or so). */
  log: CallLog;
  /** Another log over the same store, as another instance would open it (stores several instances share). */
  second?: CallLog;
  /** Waits until the log's subscriptions hear appends (a remote store subscribes in the background). */
  subscribed?(log: CallLog): Promise<void>;
  /** Releases both logs and what the factory opened. */
  cleanup(): void | Promise<void>;
}

export interface CallLogContractOptions {
  /** The factory gives a `second` log over the same store: the cases across logs run. */
  sharedStore?: boolean;
}

/** A call as the console records it: every field set, so a store must keep them all. */
export function callOf(index: number): CallRecord {
  return {
    callId: `call-${index}`, at: 1_700_000_000_000 + index, method: 'POST', path: `/webhook/orders/${index}`,
    route: '/webhook/orders/:orderId', status: 200, durationMs: index % 7, workflowId: 'wf', workflowName: 'Orders',
    nodeName: 'Webhook', mode: 'production', code: 'WORKFLOW_FAILED', message: 'Error in workflow', instance: 'a',
  };
}

const idsOf = (calls: readonly CallRecord[]): string[] => calls.map((call) => call.callId);

/** Polls `probe` for at most `ms`; a remote store delivers in milliseconds. */
async function until(probe: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`not true within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function describeCallLogContract(name: string, makeLog: () => Promise<MadeCallLog>, options: CallLogContractOptions = {}): void {
  describe(`${name} keeps the call log contract`, () => {
    let made: MadeCallLog | undefined;
    const current = (): MadeCallLog => {
      if (made === undefined) throw new Error('no log yet');
      return made;
    };
    const append = async (log: CallLog, from: number, to: number): Promise<void> => {
      for (let index = from; index <= to; index += 1) await log.append(callOf(index));
    };
    /** Subscribes and waits until the subscription hears appends. */
    const listen = async (log: CallLog, listener: (call: CallRecord) => void): Promise<() => void> => {
      const unsubscribe = log.subscribe(listener);
      await current().subscribed?.(log);
      return unsubscribe;
    };

    beforeEach(async () => { made = await makeLog(); });
    afterEach(async () => {
      await made?.cleanup();
      made = undefined;
    });

    it('lists the calls newest first, every field as appended', async () => {
      const { log } = current();
      expect(await log.recent()).to.deep.equal([]);
      await append(log, 1, 3);
      expect(await log.recent()).to.deep.equal([callOf(3), callOf(2), callOf(1)]);
    });

    it('keeps only the newest `capacity` calls, in order', async () => {
      const { log } = current();
      expect(log.capacity).to.be.within(1, 100);
      await append(log, 1, log.capacity + 5);
      const kept = Array.from({ length: log.capacity }, (_, index) => `call-${log.capacity + 5 - index}`);
      expect(idsOf(await log.recent())).to.deep.equal(kept);
      expect(idsOf(await log.recent(log.capacity + 10))).to.deep.equal(kept);
    });

    it('gives at most `limit` calls, the newest', async () => {
      const { log } = current();
      await append(log, 1, 5);
      expect(idsOf(await log.recent(2))).to.deep.equal(['call-5', 'call-4']);
      expect(idsOf(await log.recent(1))).to.deep.equal(['call-5']);
      expect(await log.recent(0)).to.deep.equal([]);
      expect(idsOf(await log.recent())).to.deep.equal(['call-5', 'call-4', 'call-3', 'call-2', 'call-1']);
    });

    it('tells a subscriber every call appended, until it unsubscribes', async () => {
      const { log } = current();
      const heard: string[] = [];
      const stays: string[] = [];
      const unsubscribe = await listen(log, (call) => heard.push(call.callId));
      await listen(log, (call) => stays.push(call.callId));
      await append(log, 1, 2);
      await until(() => heard.length === 2);
      expect(heard).to.deep.equal(['call-1', 'call-2']);
      unsubscribe();
      await append(log, 3, 3);
      // The listener that stayed heard call-3: had the other one still been subscribed, it would have too.
      await until(() => stays.length === 3);
      expect(heard).to.deep.equal(['call-1', 'call-2']);
    });

    it('tells the other subscribers when one listener throws', async () => {
      const { log } = current();
      const heard: CallRecord[] = [];
      await listen(log, () => { throw new Error('a broken listener'); });
      await listen(log, (call) => heard.push(call));
      await append(log, 1, 2);
      await until(() => heard.length === 2);
      expect(heard).to.deep.equal([callOf(1), callOf(2)]);
    });

    if (options.sharedStore === true) {
      it('lists and tells on one log the calls appended on another over the same store', async () => {
        const { log, second } = current();
        expect(second, 'the factory gives a second log over the same store').to.not.equal(undefined);
        const other = second as CallLog;
        const heardByOther: CallRecord[] = [];
        const heardHere: CallRecord[] = [];
        await listen(other, (call) => heardByOther.push(call));
        await listen(log, (call) => heardHere.push(call));
        await log.append(callOf(1));
        await until(() => heardByOther.length === 1);
        expect(heardByOther).to.deep.equal([callOf(1)]);
        await other.append(callOf(2));
        await until(() => heardHere.length === 2);
        expect(heardHere).to.deep.equal([callOf(1), callOf(2)]);
        expect(await other.recent()).to.deep.equal([callOf(2), callOf(1)]);
        expect(await log.recent()).to.deep.equal([callOf(2), callOf(1)]);
      });
    }
  });
}
