/**
 * Queue mode's PostgreSQL store link: admission of calls by idempotency key and maxQueued, run slots, and the marks
 * of refused calls a worker's claim races with, on a real PostgreSQL, on the link's own pool or the host's.
 */
import { expect } from 'chai';
import pg from 'pg';
import type { AdmitRequest } from '../../../lib/queue/store/contract.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { freshName, openSpecLink, type SpecLink } from '../../support/queue/postgres-link.js';
import { findService, markNotRun } from '../../support/services.js';

/** A call with an idempotency key (fingerprint given) and no maxQueued, unless the test says otherwise. */
function call(jobId: string, storeId: string, more: Partial<AdmitRequest> = {}): AdmitRequest {
  return { workflowId: 'wf', jobId, maxQueued: undefined, track: false, staleMs: 60_000, fingerprint: 'body-a', storeId, claimMs: 2000, ...more };
}

if (findService(POSTGRES) === undefined) {
  markNotRun('queue mode\'s PostgreSQL store (admission, slots, refusal marks)', POSTGRES);
} else {
  describe('queue mode\'s PostgreSQL store: admission, slots and refusal marks', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    let opened: SpecLink;
    const schema = freshName('queue_link');

    before(async () => {
      server = await sharedPostgres() as PostgresServer;
      opened = await openSpecLink(server.url, schema);
    });
    after(async () => { await opened?.close(); });

    /** Stores a BullMQ job as the web side would, with the data admission reads. */
    async function storeJob(jobId: string, data: Record<string, unknown>): Promise<void> {
      const queue = opened.link.newQueue();
      try {
        await queue.add('call', data as never, { jobId });
      } finally {
        await queue.close();
      }
    }

    it('admits a first call (ok), and a repeat of a call still being stored is pending, or a mismatch with another body', async () => {
      const { link } = opened;
      expect(await link.admit(call('job-1', 'store-1'))).to.equal('ok');
      expect(await link.admit(call('job-1', 'store-2'))).to.equal('pending');
      expect(await link.admit(call('job-1', 'store-3', { fingerprint: 'body-b' }))).to.equal('mismatch');
      // Its own store attempt, asking again, is admitted.
      expect(await link.admit(call('job-1', 'store-1'))).to.equal('ok');
    });

    it('counts fingerprints made under different keys (a key rotation) as the same body, and those under one key as different', async () => {
      const { link } = opened;
      expect(await link.admit(call('job-rot', 'store-1', { fingerprint: 'k1:aaa' }))).to.equal('ok');
      expect(await link.admit(call('job-rot', 'store-2', { fingerprint: 'k2:bbb' }))).to.equal('pending');
      expect(await link.admit(call('job-rot', 'store-3', { fingerprint: 'k1:ccc' }))).to.equal('mismatch');
    });

    it('lets a repeat store the job once the first call\'s claim window passed, or once it gave its claim up', async () => {
      const { link, clock } = opened;
      expect(await link.admit(call('job-late', 'store-1'))).to.equal('ok');
      clock.now += 2000;
      expect(await link.admit(call('job-late', 'store-2'))).to.equal('ok');
      expect(await link.admit(call('job-given', 'store-1'))).to.equal('ok');
      await link.unclaim('job-given', 'store-other');
      expect(await link.admit(call('job-given', 'store-2'))).to.equal('pending');
      await link.unclaim('job-given', 'store-1');
      expect(await link.admit(call('job-given', 'store-2'))).to.equal('ok');
    });

    it('answers a call whose job is stored: duplicate with the same body, mismatch with another, retake when its caller was refused', async () => {
      const { link } = opened;
      await storeJob('job-stored', { storeId: 'store-1', fingerprint: 'body-a' });
      expect(await link.admit(call('job-stored', 'store-2'))).to.equal('duplicate');
      expect(await link.admit(call('job-stored', 'store-2', { fingerprint: 'body-b' }))).to.equal('mismatch');
      // A call without a key never compares bodies.
      expect(await link.admit(call('job-stored', 'store-2', { fingerprint: undefined }))).to.equal('duplicate');
      link.markRefused('store-1', 60_000);
      // Read from the table, not by wasRefused: that is a worker's claim, and a claim written first keeps the job the
      // worker's (the mark then comes too late, by design).
      await until(() => markWritten('store-1'));
      expect(await link.admit(call('job-stored', 'store-2'))).to.equal('retake');
    });

    it('refuses a run past the workflow\'s maxQueued (full), counting unfinished runs less running ones, and drops stale entries', async () => {
      const { link, clock } = opened;
      const queued = (jobId: string): AdmitRequest => call(jobId, `s-${jobId}`, { workflowId: 'capped', maxQueued: 2, track: true, fingerprint: undefined });
      expect(await link.admit(queued('q1'))).to.equal('ok');
      expect(await link.admit(queued('q2'))).to.equal('ok');
      expect(await link.admit(queued('q3'))).to.equal('full');
      // A running run no longer waits.
      expect(await link.acquireSlot('capped', 'q1', 5, 10_000)).to.equal(true);
      expect(await link.admit(queued('q3'))).to.equal('ok');
      expect(await link.admit(queued('q4'))).to.equal('full');
      await link.releaseSlot('capped', 'q1', true);
      expect(await link.admit(queued('q4'))).to.equal('full');
      await link.releaseSlot('capped', 'q2', true);
      expect(await link.admit(queued('q4'))).to.equal('ok');
      // Entries older than the idempotency window count as lost.
      clock.now += 60_000;
      expect(await link.admit(queued('q5'))).to.equal('ok');
      expect(await link.admit(queued('q6'))).to.equal('ok');
      expect(await link.admit(queued('q7'))).to.equal('full');
    });

    it('admits exactly one of 20 racing calls with one key; the others are told it is pending', async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => opened.link.admit(call('job-race', `racer-${index}`))));
      expect(answers.filter((answer) => answer === 'ok')).to.have.length(1);
      expect(answers.filter((answer) => answer === 'pending')).to.have.length(19);
    });

    it('admits exactly maxQueued of 20 racing calls to one workflow, from two links', async () => {
      // A worker's link on the same queue: the limit holds across processes.
      const same = await openSpecLink(server.url, schema, opened.name, false, opened.clock);
      try {
        const links = [opened.link, same.link];
        const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => (links[index % 2] as SpecLink['link']).admit(
          call(`race-q${index}`, `racer-${index}`, { workflowId: 'race-capped', maxQueued: 3, track: true, fingerprint: undefined }))));
        expect(answers.filter((answer) => answer === 'ok')).to.have.length(3);
        expect(answers.filter((answer) => answer === 'full')).to.have.length(17);
      } finally {
        await same.close();
      }
    });

    it('never lets racing runs hold more slots than the limit; a run renews its own, and a lapsed lease frees it', async () => {
      const { link, clock } = opened;
      // Rounds of racers on fresh workflows, from two links, so count-then-take races are provoked, not hoped for.
      const same = await openSpecLink(server.url, schema, opened.name, false, opened.clock);
      try {
        for (let round = 0; round < 10; round += 1) {
          const racing = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? link : same.link).acquireSlot(`slots-${round}`, `run-${index}`, 3, 10_000)));
          expect(racing.filter(Boolean), `round ${round}`).to.have.length(3);
        }
      } finally {
        await same.close();
      }
      const taken = await Promise.all(Array.from({ length: 20 }, (_, index) => link.acquireSlot('slots', `run-${index}`, 3, 10_000)));
      expect(taken.filter(Boolean)).to.have.length(3);
      const holder = `run-${taken.indexOf(true)}`;
      expect(await link.acquireSlot('slots', holder, 3, 10_000)).to.equal(true);
      expect(await link.acquireSlot('slots', 'run-late', 3, 10_000)).to.equal(false);
      await link.releaseSlot('slots', holder, false);
      expect(await link.acquireSlot('slots', 'run-late', 3, 10_000)).to.equal(true);
      expect(await link.acquireSlot('slots', 'run-later', 3, 10_000)).to.equal(false);
      clock.now += 10_000;
      expect(await link.acquireSlot('slots', 'run-later', 3, 10_000)).to.equal(true);
    });

    /** Whether the store attempt's row is in the table yet (a refusal mark is written in the background). */
    async function markWritten(storeId: string): Promise<boolean> {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        return (await client.query(`SELECT 1 FROM ${schema}.queue_refused WHERE store_id = $1`, [storeId])).rowCount === 1;
      } finally {
        await client.end();
      }
    }

    it('keeps a refusal mark for its time, then forgets it', async () => {
      const { link, clock } = opened;
      link.markRefused('store-x', 5000);
      await until(() => markWritten('store-x'));
      expect(await link.wasRefused('store-x')).to.equal(true);
      clock.now += 4999;
      expect(await link.wasRefused('store-x')).to.equal(true);
      clock.now += 1;
      expect(await link.wasRefused('store-x')).to.equal(false);
    });

    it('writes a refusal mark the database did not take once it takes it again: a lost mark would let the job run', async () => {
      const { link, warnings } = opened;
      const admin = new pg.Pool({ connectionString: server.url, max: 1 });
      admin.on('error', () => undefined);
      try {
        // The table away for a moment: every write of a mark fails meanwhile.
        await admin.query(`ALTER TABLE ${schema}.queue_refused RENAME TO queue_refused_away`);
        link.markRefused('store-kept', 60_000);
        link.markRefused('store-kept-too', 60_000);
        await new Promise((resolve) => setTimeout(resolve, 400));
        await admin.query(`ALTER TABLE ${schema}.queue_refused_away RENAME TO queue_refused`);
        await until(() => markWritten('store-kept'));
        await until(() => markWritten('store-kept-too'));
        expect(await link.wasRefused('store-kept')).to.equal(true);
        // Told once for the streak of failures, not at each attempt.
        expect(warnings.filter((line) => /marking a refused call/.test(line))).to.have.length(1);
      } finally {
        await admin.query(`ALTER TABLE IF EXISTS ${schema}.queue_refused_away RENAME TO queue_refused`).catch(() => undefined);
        await admin.end();
      }
    });

    it('leaves a late job to the worker that claimed it first: a refusal that comes after does not stand', async () => {
      const { link } = opened;
      expect(await link.wasRefused('store-claimed')).to.equal(false);
      link.markRefused('store-claimed', 5000);
      link.markRefused('store-other', 5000);
      await until(() => markWritten('store-other'));
      expect(await link.wasRefused('store-claimed')).to.equal(false);
      expect(await link.wasRefused('store-other')).to.equal(true);
    });

    it('tells each of many late jobs claimed at once its own fate: the refused ones are refused, the others run', async () => {
      const { link } = opened;
      const refused = Array.from({ length: 15 }, (_, index) => `many-refused-${index}`);
      for (const storeId of refused) link.markRefused(storeId, 60_000);
      for (const storeId of refused) await until(() => markWritten(storeId));
      const storeIds = [...refused, ...Array.from({ length: 15 }, (_, index) => `many-free-${index}`)].sort(() => Math.random() - 0.5);
      const answers = await Promise.all(storeIds.map((storeId) => link.wasRefused(storeId)));
      expect(Object.fromEntries(storeIds.map((storeId, index) => [storeId, answers[index]])))
        .to.deep.equal(Object.fromEntries(storeIds.map((storeId) => [storeId, storeId.startsWith('many-refused')])));
    });

    it('settles every late job once when refusals and claims race: refused and not run, or run and its refusal not kept', async () => {
      const worker = await openSpecLink(server.url, schema, opened.name, false, opened.clock);
      try {
        const warnedBefore = opened.warnings.length;
        const storeIds = Array.from({ length: 40 }, (_, index) => `race-${String(index).padStart(2, '0')}`);
        // Half were claimed before their refusal came; the web side marks all of them in one order while the worker
        // claims the other half in the opposite one, batches on both sides.
        const first = await Promise.all(storeIds.slice(0, 20).map(async (storeId) => [storeId, await worker.link.wasRefused(storeId)] as const));
        for (const storeId of storeIds) opened.link.markRefused(storeId, 60_000);
        const racing = await Promise.all(storeIds.slice(20).reverse().map(async (storeId) => [storeId, await worker.link.wasRefused(storeId)] as const));
        const answers = [...first, ...racing];
        expect(first.map(([, refused]) => refused)).to.deep.equal(Array.from({ length: 20 }, () => false));
        for (const storeId of storeIds) await until(() => markWritten(storeId));
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        try {
          const rows = await client.query(`SELECT store_id, refused FROM ${schema}.queue_refused WHERE store_id LIKE 'race-%'`);
          const kept = Object.fromEntries(rows.rows.map((row: { store_id: string; refused: boolean }) => [row.store_id, row.refused]));
          expect(kept).to.deep.equal(Object.fromEntries(answers));
        } finally {
          await client.end();
        }
        // No batch failed (a deadlock between a batch of marks and one of claims would be told here).
        expect(opened.warnings.slice(warnedBefore)).to.deep.equal([]);
        expect(worker.warnings).to.deep.equal([]);
      } finally {
        await worker.close();
      }
    });
  });

  describe('queue mode\'s PostgreSQL store on the host\'s pool, or a pool config with BullMQ\'s schema', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    before(async () => { server = await sharedPostgres() as PostgresServer; });

    it('reads jobs in the BullMQ schema a pool config names', async () => {
      const opened = await openSpecLink({ connectionString: server.url, schema: 'bull_other' }, freshName('queue_config'));
      try {
        const queue = opened.link.newQueue();
        await queue.add('call', { storeId: 'store-1', fingerprint: 'body-a' } as never, { jobId: 'in-other' });
        await queue.close();
        expect(await opened.link.admit(call('in-other', 'store-2'))).to.equal('duplicate');
      } finally {
        await opened.close();
      }
    });

    it('refuses to open on a host\'s pg.Pool whose search_path lacks BullMQ\'s schema, saying how to make the pool', async () => {
      const pool = new pg.Pool({ connectionString: server.url, max: 6 });
      try {
        const error = await openSpecLink(pool, freshName('queue_path')).then(() => undefined, (failure: unknown) => failure as Error);
        expect(error?.message).to.include('does not have BullMQ\'s schema "bullmq" on its search_path');
        expect(error?.message).to.include('options: \'-c search_path=bullmq,public\'');
      } finally {
        await pool.end();
      }
    });

    it('runs its statements on the host\'s pg.Pool, and leaves it open when closed', async () => {
      const pool = new pg.Pool({ connectionString: server.url, max: 6, options: '-c search_path=bullmq' });
      try {
        const opened = await openSpecLink(pool, freshName('queue_pool'));
        expect(await opened.link.admit(call('on-pool', 'store-1'))).to.equal('ok');
        await opened.close();
        expect((await pool.query('SELECT 1 AS one')).rows[0].one).to.equal(1);
      } finally {
        await pool.end();
      }
    });
  });
}

/** Polls an asynchronous probe until it holds (a fire-and-forget write lands). */
async function until(probe: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('never held');
}
