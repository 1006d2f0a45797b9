import { expect } from 'chai';
import { LATE_PAUSE_MS, LateJobs } from '../../lib/queue/late-jobs.js';
import type { WebhookJobData } from '../../lib/queue/job-data.js';
import type { QueueStoreLink } from '../../lib/queue/store/contract.js';

/** The store's side of a late job, as the store contract has it: marked refused (by a web instance) or not. */
function storeWith(refused: string[], failing = false): { link: QueueStoreLink; asked: string[] } {
  const asked: string[] = [];
  const link = {
    async wasRefused(storeId: string) {
      asked.push(storeId);
      if (failing) throw new Error('PostgreSQL could not be reached');
      return refused.includes(storeId);
    },
  } as unknown as QueueStoreLink;
  return { link, asked };
}

const job = (storeId: string, answerBy: number): WebhookJobData => ({ storeId, answerBy } as unknown as WebhookJobData);

describe('a worker that takes a job after its caller\'s answer was due', () => {
  const clock = { now: 1_000_000 };
  const now = (): number => clock.now;

  it('runs a job taken in time without asking the store', async () => {
    const { link, asked } = storeWith([]);
    const late = new LateJobs(link, now);
    expect(await late.verdict(job('s1', clock.now + 5000))).to.equal('run');
    expect(await late.verdict({} as WebhookJobData)).to.equal('run');
    expect(asked).to.deep.equal([]);
  });

  it('asks the store about a late job: skips it when its caller was refused, runs it otherwise', async () => {
    const { link, asked } = storeWith(['refused']);
    const late = new LateJobs(link, now);
    expect(await late.verdict(job('refused', clock.now - 100))).to.equal('refused');
    expect(await late.verdict(job('accepted', clock.now - 100))).to.equal('run');
    expect(asked).to.deep.equal(['refused', 'accepted']);
  });

  it('puts a late job back once right after the store failed it, so that a refusal on its way lands before the claim', async () => {
    const { link, asked } = storeWith([]);
    const late = new LateJobs(link, now);
    late.trouble();
    expect(await late.verdict(job('s2', clock.now - 100))).to.equal('later');
    clock.now += LATE_PAUSE_MS;
    expect(await late.verdict(job('s2', clock.now - 100))).to.equal('run');
    expect(asked).to.deep.equal(['s2']);
    // Long after the trouble, a late job is settled at once.
    clock.now += 60_000;
    expect(await late.verdict(job('s3', clock.now - 100))).to.equal('run');
  });

  it('counts a store that fails the question as trouble, and lets the failure fail the attempt', async () => {
    const { link } = storeWith([], true);
    const late = new LateJobs(link, now);
    const error = await late.verdict(job('s4', clock.now - 100)).then(() => undefined, (failure: unknown) => failure as Error);
    expect(error?.message).to.equal('PostgreSQL could not be reached');
    expect(await late.verdict(job('s5', clock.now - 100))).to.equal('later');
  });
});
