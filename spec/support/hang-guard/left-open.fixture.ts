/**
 * Run by spec/hang-guard.spec.ts in a mocha of its own (not a spec of the suite: its name does not end in .spec.ts):
 * a test that leaves a loopback server listening, as a spec that forgets its after() would, and as many failing
 * tests as HANG_FIXTURE_FAILURES says.
 */
import { createServer } from 'node:net';
import { expect } from 'chai';

describe('a spec that leaves a server open', () => {
  it('starts a server and never closes it', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    expect(server.listening).to.equal(true);
  });

  for (let failure = 1; failure <= Number(process.env.HANG_FIXTURE_FAILURES ?? 0); failure += 1) {
    it(`fails on purpose (${failure})`, () => {
      expect(failure, 'a failure the fixture was asked for').to.equal(0);
    });
  }
});
