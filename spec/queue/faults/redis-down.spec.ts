/**
 * Queue mode when Redis is gone (killed) and then back (restarted, empty, on the same port): calls are refused 503
 * QUEUE_UNAVAILABLE at once rather than left hanging, and once Redis is back the web instance and the worker take
 * and run calls again by themselves.
 */
import { expect } from 'chai';
import { waitForCompletions } from '../../support/queue/completions.js';
import { queueFaultFixture } from '../../support/queue/fixture.js';
import { callUntilAccepted, load, tally } from '../../support/queue/load.js';
import { REDIS } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';

const ENQUEUE_TIMEOUT_MS = 800;
/**
 * A call of a fault window unanswered this long after it was sent is recorded as a hang (no status), which fails the
 * spec: a refusal is due after ENQUEUE_TIMEOUT_MS; only a call left waiting, or a wait for Redis itself, comes near.
 */
const HANG_AFTER_MS = ENQUEUE_TIMEOUT_MS + 4000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

if (findService(REDIS) === undefined) {
  markNotRun('queue mode while Redis is down', REDIS);
} else {
  describe('queue mode while Redis is down and after it is restarted', function () {
    this.timeout(90_000);
    const fixture = queueFaultFixture('down', ENQUEUE_TIMEOUT_MS);
    const target = (): number => fixture.web.port;

    it('refuses calls 503 QUEUE_UNAVAILABLE with Retry-After within the enqueue timeout while Redis is down, and never hangs', async () => {
      const before = await load({ total: 50, prefix: 'before', inFlight: 10, target });
      expect(tally(before)).to.deep.equal({ 200: 50 });
      // Every run stored so far is done: the crash below loses nothing that was answered 200 (persistence is off).
      expect(await waitForCompletions([fixture.log], before.map((outcome) => outcome.id), 30_000)).to.deep.equal([]);

      await fixture.server.kill();
      // Right after the crash, and again once the connections are deep in their reconnection attempts.
      const first = await load({ total: 30, prefix: 'down-early', inFlight: 10, target, hangAfterMs: HANG_AFTER_MS });
      await sleep(2000);
      const later = await load({ total: 30, prefix: 'down-later', inFlight: 10, target, hangAfterMs: HANG_AFTER_MS });
      const outcomes = [...first, ...later];
      console.log(`      down: answers ${JSON.stringify(tally(outcomes))}; slowest answer ${Math.max(...outcomes.map((outcome) => outcome.ms))} ms, ` +
        `fastest ${Math.min(...outcomes.map((outcome) => outcome.ms))} ms`);

      for (const outcome of outcomes) {
        expect([outcome.status, outcome.code, outcome.retryAfter, outcome.error], `call ${outcome.id}`).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '2', undefined]);
      }
      expect(fixture.unhandled).to.deep.equal([]);
      expect(fixture.children.unexpectedExits).to.deep.equal([]);
    });

    it('takes and runs calls again once Redis is restarted, without restarting the web instance or the worker', async () => {
      // Down since the test before, or taken down here when this test runs alone.
      await fixture.server.kill();
      await sleep(1000);
      await fixture.server.restart();
      // A sender retrying its 503 meets refusals while the connections come back, never a hang or a dropped connection.
      const retries = await callUntilAccepted(fixture.web.port, 'back', 20_000);
      expect(retries.at(-1)?.status, 'a call answered 200 within 20 s of the restart').to.equal(200);
      for (const outcome of retries.slice(0, -1)) {
        expect([outcome.status, outcome.code, outcome.retryAfter], `call ${outcome.id}`).to.deep.equal([503, 'QUEUE_UNAVAILABLE', '2']);
      }
      console.log(`      restarted: answered 200 after ${retries.length - 1} refusals`);
      const after = await load({ total: 200, prefix: 'after', inFlight: 10, target });
      expect(tally(after)).to.deep.equal({ 200: 200 });
      const missing = await waitForCompletions([fixture.log], after.map((outcome) => outcome.id), 30_000);
      console.log(`      restarted: answered 200 and lost: ${missing.length} of ${after.length}`);
      expect(missing, 'calls answered 200 whose run never completed').to.deep.equal([]);
      expect(fixture.unhandled).to.deep.equal([]);
      expect(fixture.children.unexpectedExits).to.deep.equal([]);
    });
  });
}
