/**
 * Queue mode when Redis stops answering (SIGSTOP for 5 s) under a steady stream of onReceived calls: each call is
 * refused 503 in time or answered 200 and run, never answered 200 and lost; once Redis answers again the service
 * goes on without a restart.
 */
import { expect } from 'chai';
import { completions, waitForCompletions } from '../../support/queue/completions.js';
import { queueFaultFixture } from '../../support/queue/fixture.js';
import { call, callUntilAccepted, load, stream, tally, type Outcome } from '../../support/queue/load.js';
import { REDIS } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';

const ENQUEUE_TIMEOUT_MS = 800;
/**
 * A call of a fault window unanswered this long after it was sent is recorded as a hang (no status), which fails the
 * spec: a refusal is due after ENQUEUE_TIMEOUT_MS; only a call left waiting, or a wait for Redis itself, comes near.
 */
const HANG_AFTER_MS = ENQUEUE_TIMEOUT_MS + 4000;
const PAUSE_MS = 5000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

if (findService(REDIS) === undefined) {
  markNotRun('queue mode while Redis is paused', REDIS);
} else {
  describe('queue mode while Redis is paused under load', function () {
    this.timeout(90_000);
    const fixture = queueFaultFixture('paused', ENQUEUE_TIMEOUT_MS);
    const target = (): number => fixture.web.port;

    /** What every call of a fault window may end as: stored (200) or refused in time, and nothing else. */
    function expectStoredOrRefused(outcomes: Outcome[]): void {
      for (const outcome of outcomes) {
        if (outcome.status === 200) continue;
        expect([outcome.status, outcome.code, outcome.retryAfter, outcome.error], `call ${outcome.id}`).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '2', undefined]);
      }
    }

    it('answers every call during the pause 503 QUEUE_UNAVAILABLE with Retry-After, or 200 and runs it', async () => {
      const warmUp = await load({ total: 20, prefix: 'before', inFlight: 5, target });
      expect(tally(warmUp)).to.deep.equal({ 200: 20 });

      let stop = false;
      const streaming = stream({ prefix: 'paused', inFlight: 10, gapMs: 20, target, until: () => stop, hangAfterMs: HANG_AFTER_MS });
      await sleep(1000);
      fixture.server.pause();
      const pausedAt = Date.now();
      await sleep(PAUSE_MS);
      fixture.server.resume();
      const resumedAt = Date.now();
      // The stream goes on a while after SIGCONT: calls under way across the resumption are judged the same.
      await sleep(2000);
      stop = true;
      const outcomes = await streaming;

      const accepted = [...warmUp, ...outcomes].filter((outcome) => outcome.status === 200).map((outcome) => outcome.id);
      const missing = await waitForCompletions([fixture.log], accepted, 30_000);
      const counts = completions([fixture.log]);
      const refused = outcomes.filter((outcome) => outcome.status === 503);
      // A refused call must not run: Redis stores its job on SIGCONT, but the refusal's mark lands right behind it and
      // the worker that takes the late job skips it.
      console.log(`      paused ${resumedAt - pausedAt} ms: answers ${JSON.stringify(tally(outcomes))}; answered 200 and lost: ${missing.length}; ` +
        `refused but ran: ${refused.filter((outcome) => counts.has(outcome.id)).length}; ran more than once: ${[...counts.values()].filter((count) => count > 1).length}; ` +
        `slowest refusal: ${Math.max(0, ...refused.map((outcome) => outcome.ms))} ms`);

      expectStoredOrRefused(outcomes);
      expect(missing, 'calls answered 200 whose run never completed').to.deep.equal([]);
      expect(refused.filter((outcome) => counts.has(outcome.id)).map((outcome) => outcome.id), 'calls refused 503 that ran').to.deep.equal([]);
      // The pause was felt: calls were refused, not left waiting until Redis came back.
      expect(refused.length).to.be.above(0);
      expect(fixture.unhandled).to.deep.equal([]);
      expect(fixture.children.unexpectedExits).to.deep.equal([]);
    });

    it('takes and runs calls again once Redis answers, without a restart', async () => {
      fixture.server.pause();
      const during = await call(fixture.web.port, 'during-pause');
      await sleep(PAUSE_MS - during.ms);
      fixture.server.resume();
      expect([during.status, during.code]).to.deep.equal([503, 'QUEUE_UNAVAILABLE']);
      // While the connections catch up on what piled up, a call may still be refused, never left hanging or dropped.
      const retries = await callUntilAccepted(fixture.web.port, 'back', 10_000);
      expect(retries.at(-1)?.status, 'a call answered 200 within 10 s of SIGCONT').to.equal(200);
      expectStoredOrRefused(retries);
      const after = await load({ total: 200, prefix: 'after', inFlight: 10, target });
      expect(tally(after)).to.deep.equal({ 200: 200 });
      expect(await waitForCompletions([fixture.log], after.map((outcome) => outcome.id), 30_000)).to.deep.equal([]);
      expect(fixture.unhandled).to.deep.equal([]);
      expect(fixture.children.unexpectedExits).to.deep.equal([]);
    });
  });
}
