/**
 * The reply waiters' looks at a job, against a stand-in for BullMQ's queue: the one thing a real Redis cannot be made
 * to do on cue is complete a job between the two reads of a look, which is the race these cases pin down.
 */
import { expect } from 'chai';
import type { Queue } from 'bullmq';
import { ReplyWaiters, type ReplyOpeners, type WaitHandlers } from '../../lib/queue/replies.js';
import type { PackedResponse, WebhookJobResult } from '../../lib/queue/job-data.js';

interface FakeJob { state: string; returnvalue: WebhookJobResult | null; failedReason?: string; attemptsMade: number; opts: { attempts: number } }

/** A queue whose job reads as `reads` says, one entry per look (the last one repeats). */
function queueOf(reads: (FakeJob | undefined)[]): Queue {
  let look = 0;
  return {
    getJob: async () => {
      const job = reads[Math.min(look, reads.length - 1)];
      look += 1;
      return job === undefined ? undefined : { ...job, getState: async () => job.state };
    },
  } as unknown as Queue;
}

function handlers(overrides: Partial<WaitHandlers> = {}): WaitHandlers & { results: WebhookJobResult[]; failures: string[] } {
  const results: WebhookJobResult[] = [];
  const failures: string[] = [];
  return {
    results, failures,
    respond: () => undefined,
    completed: (result) => { results.push(result); },
    failed: (message) => { failures.push(message.message); },
    ...overrides,
  };
}

/** Results as they were stored (no encryption). */
const same: ReplyOpeners = { result: (result) => result, response: (message) => message.response as PackedResponse, failure: (message) => ({ message: message.message as string }) };

async function until(probe: () => boolean): Promise<void> {
  for (let tries = 0; !probe(); tries += 1) {
    if (tries > 200) throw new Error('never true');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('reply waiters', () => {
  const result: WebhookJobResult = { items: [{ json: { ok: true } }] };

  it('reads a job that completed between its two reads again instead of throwing, and answers from its result', async () => {
    const errors: unknown[] = [];
    const waiters = new ReplyWaiters(queueOf([
      { state: 'completed', returnvalue: null, attemptsMade: 1, opts: { attempts: 3 } },
      { state: 'completed', returnvalue: result, attemptsMade: 1, opts: { attempts: 3 } },
    ]), 10_000, same, (error) => errors.push(error));
    const waiting = handlers();
    waiters.wait('job-1', waiting, true);
    await until(() => waiting.results.length === 1);
    expect(waiting.results).to.deep.equal([result]);
    expect(errors).to.deep.equal([]);
    expect(waiters.watchedJobs).to.equal(0);
  });

  it('answers every call waiting for one job, and stops looking at it once they are answered', async () => {
    const waiters = new ReplyWaiters(queueOf([{ state: 'active', returnvalue: null, attemptsMade: 0, opts: { attempts: 1 } }]), 10_000, same, () => undefined);
    const calls = [handlers(), handlers(), handlers()];
    const stops = calls.map((call) => waiters.wait('job-2', call));
    expect(waiters.size).to.equal(3);
    expect(waiters.watchedJobs).to.equal(1);
    waiters.deliver(JSON.stringify({ jobId: 'job-2', type: 'completed', result }));
    expect(calls.map((call) => call.results.length)).to.deep.equal([1, 1, 1]);
    expect(waiters.size).to.equal(0);
    expect(waiters.watchedJobs).to.equal(0);
    for (const stop of stops) stop();
  });

  it('keeps looking for the calls still waiting when one of them gives up', () => {
    const waiters = new ReplyWaiters(queueOf([undefined]), 10_000, same, () => undefined);
    const stopFirst = waiters.wait('job-3', handlers());
    const second = handlers();
    waiters.wait('job-3', second);
    stopFirst();
    expect(waiters.watchedJobs).to.equal(1);
    waiters.deliver(JSON.stringify({ jobId: 'job-3', type: 'failed', message: 'boom' }));
    expect(second.failures).to.deep.equal(['boom']);
    expect(waiters.watchedJobs).to.equal(0);
  });

  it('hands a waiting call\'s failing handler to onError and still answers the others', () => {
    const errors: unknown[] = [];
    const waiters = new ReplyWaiters(queueOf([undefined]), 10_000, same, (error) => errors.push(error));
    const broken = handlers({ completed: () => { throw new Error('handler broke'); } });
    const fine = handlers();
    waiters.wait('job-4', broken);
    waiters.wait('job-4', fine);
    expect(() => waiters.deliver(JSON.stringify({ jobId: 'job-4', type: 'completed', result }))).not.to.throw();
    expect((errors[0] as Error).message).to.equal('handler broke');
    expect(fine.results).to.have.length(1);
  });

  it('ignores reply messages that are not JSON objects naming a job', () => {
    const waiters = new ReplyWaiters(queueOf([undefined]), 10_000, same, () => undefined);
    const waiting = handlers();
    waiters.wait('job-5', waiting);
    for (const text of ['not json', 'null', '42', '{"type":"completed"}']) expect(() => waiters.deliver(text)).not.to.throw();
    expect(waiters.size).to.equal(1);
  });

  it('fails the calls waiting for a job that was seen and then removed, instead of leaving them to their deadline', async () => {
    const waiters = new ReplyWaiters(queueOf([{ state: 'active', returnvalue: null, attemptsMade: 0, opts: { attempts: 1 } }, undefined]), 10, same, () => undefined);
    const waiting = handlers();
    waiters.wait('job-6', waiting, true);
    await until(() => waiting.failures.length === 1);
    expect(waiting.failures[0]).to.match(/removed/);
    expect(waiters.watchedJobs).to.equal(0);
  });
});
