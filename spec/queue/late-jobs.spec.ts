import { expect } from 'chai';
import type { WebhookWorkerEvent } from 'workflow-webhooks/queue';
import { LATE_PAUSE_MS, LateJobs } from '../../lib/queue/late-jobs.js';
import type { WebhookJobData } from '../../lib/queue/job-data.js';
import { nextMarkPause } from '../../lib/queue/store/mark-pauses.js';
import { eventually, queueSetup } from '../support/queue/setup.js';
import { RedisServer, REDIS } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
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

  it('puts a late job back for longer than a web instance\'s longest pause between attempts at its mark, and a second for round trips', () => {
    // The pauses a web instance takes, one after another, while its store does not take the mark.
    let longest = 0;
    for (let pause = nextMarkPause(0); pause > longest; pause = nextMarkPause(pause)) longest = pause;
    expect(longest, 'the marks\' pauses stop growing').to.be.above(0);
    expect(LATE_PAUSE_MS).to.be.at.least(longest + 1000);
  });

  it('counts a store that fails the question as trouble, and lets the failure fail the attempt', async () => {
    const { link } = storeWith([], true);
    const late = new LateJobs(link, now);
    const error = await late.verdict(job('s4', clock.now - 100)).then(() => undefined, (failure: unknown) => failure as Error);
    expect(error?.message).to.equal('PostgreSQL could not be reached');
    expect(await late.verdict(job('s5', clock.now - 100))).to.equal('later');
  });
});

if (findService(REDIS) === undefined) {
  markNotRun('a worker puts a late job back after its store failed it', REDIS);
} else {
  describe('a worker that takes a late job right after its store failed it, on Redis', function () {
    this.timeout(20_000);
    let server: RedisServer;
    before(async () => { server = await RedisServer.start() as RedisServer; });
    after(async () => { await server?.stop(); });
    const setup = queueSetup(() => server);

    it('puts the job back, so that the refusal\'s mark written meanwhile makes it skip the job instead of running it', async () => {
      const queue = setup.queue();
      await queue.ready();
      const runs: string[] = [];
      const skipped: string[] = [];
      let failed = 0;
      const worker = setup.worker(async (run) => { runs.push(run.callId); return { items: [] }; }, {
        onEvent: (event: WebhookWorkerEvent) => {
          if (event.type === 'skipped') skipped.push(`${event.jobId} ${event.reason}`);
          if (event.type === 'error') failed += 1;
        },
      });
      await worker.ready();
      // The store fails the worker: the connection it waits for jobs on is cut, as a Redis restart would cut it.
      await eventually(async () => {
        const waiting = String(await setup.redis.sendCommand(['CLIENT', 'LIST'])).split('\n').filter((line) => / cmd=bzpopmin /.test(line));
        for (const line of waiting) await setup.redis.sendCommand(['CLIENT', 'KILL', 'ID', /^id=(\d+)/.exec(line)?.[1] as string]);
        return failed > 0;
      }, 10_000);
      // A job the store kept after its web instance's answer deadline, whose refusal's mark is still on its way.
      const job = await queue.bullQueue.add('wf', {
        version: 1, callId: 'late-call', workflowId: 'wf', nodeName: 'Webhook', mode: 'production', method: 'POST', outputIndex: 0,
        responseMode: 'onReceived', storedAt: Date.now() - 5000, storeId: 'late-store', answerBy: Date.now() - 3000, item: { json: { body: {} } },
      } as never);
      await eventually(async () => runs.length > 0 || await job.getState() === 'delayed', 10_000);
      expect(runs, 'the late job ran at once, before its refusal\'s mark could land').to.deep.equal([]);
      await setup.send(['SET', `${setup.prefix}:${setup.name}:wh:refused:late-store`, '1']);
      await eventually(() => skipped.length === 1, 10_000);
      expect(skipped).to.deep.equal([`${job.id as string} refused`]);
      expect(runs).to.deep.equal([]);
    });
  });
}
