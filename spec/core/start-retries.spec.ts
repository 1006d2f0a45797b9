/**
 * Starting something that needs a store while the store may be away: tried again until it starts, the outage told
 * once per streak, each waiter with its own deadline, and a failure waiting cannot mend ending the tries at once.
 */
import { expect } from 'chai';
import { StartRetries } from '../../lib/core/start-retries.js';

const PAUSES = [1, 1, 2];

/** Tries that fail with `failures` in order, then succeed with 'started'; every try and every told outage counted. */
function scripted(failures: unknown[], retryable: (error: unknown) => boolean = () => true) {
  const told: string[] = [];
  const failed: string[] = [];
  let tries = 0;
  const retries = new StartRetries<string>({
    attempt: async () => {
      tries += 1;
      if (tries <= failures.length) throw failures[tries - 1];
      return 'started';
    },
    retryable,
    onUnreachable: (error) => { told.push(error.message); },
    onFailed: (error) => { failed.push(error.message); },
    pausesMs: PAUSES,
  });
  return { retries, told, failed, tries: () => tries };
}

const late = (cause: Error | undefined): Error => new Error(`late: ${cause?.message ?? 'no try failed yet'}`);

describe('starting while the store is away (StartRetries)', () => {
  it('tries again until a try starts, and tells the outage once for the whole streak', async () => {
    const { retries, told, tries } = scripted([new Error('refused 1'), new Error('refused 2'), new Error('refused 3')]);
    expect(await retries.wait(undefined, late)).to.equal('started');
    expect([tries(), retries.tries, told]).to.deep.equal([4, 4, ['refused 1']]);
    expect(retries.started).to.equal(true);
    expect(await retries.wait(0, late)).to.equal('started');
  });

  it('rejects a waiter past its deadline with the last cause, while the tries go on for the others', async () => {
    const { retries } = scripted(Array.from({ length: 40 }, (_, index) => new Error(`refused ${index + 1}`)));
    const patient = retries.wait(undefined, late);
    const error = await retries.wait(5, late).then(() => undefined, (failure: Error) => failure);
    expect(error?.message).to.match(/^late: refused \d+$/);
    expect(await patient).to.equal('started');
  });

  it('ends the tries at once on a failure waiting cannot mend, tells it, and starts again when asked again', async () => {
    const setting = new TypeError('a setting');
    const { retries, told, failed, tries } = scripted([new Error('refused'), setting], (error) => !(error instanceof TypeError));
    const error = await retries.wait(undefined, late).then(() => undefined, (failure: unknown) => failure);
    expect([error, tries(), told, failed]).to.deep.equal([setting, 2, ['refused'], ['a setting']]);
    expect(await retries.wait(undefined, late)).to.equal('started');
  });

  it('stops for good when stopped: waiters are rejected, no try follows, and settled() waits for the one under way', async () => {
    let finish!: () => void;
    let tries = 0;
    const retries = new StartRetries<string>({
      attempt: () => { tries += 1; return new Promise<string>((resolve) => { finish = () => resolve('late'); }); },
      retryable: () => true, onUnreachable: () => undefined, pausesMs: PAUSES,
    });
    const waiting = retries.wait(undefined, late).then(() => 'resolved', (failure: Error) => failure.message);
    retries.stop(new Error('closed'));
    expect(await waiting).to.equal('closed');
    let settled = false;
    const done = retries.settled().then(() => { settled = true; });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).to.equal(false);
    finish();
    await done;
    expect([retries.started, tries]).to.deep.equal([false, 1]);
    expect((await retries.wait(undefined, late).then(() => undefined, (failure: Error) => failure))?.message).to.equal('late: no try failed yet');
  });
});
