import { expect } from 'chai';
import { runFuzz, startFuzzServer } from '../support/fuzz/harness.js';
import { eventually, makeTempDir } from '../support/temp-dir.js';

/** CI runs a few thousand; `npm run fuzz` runs 100 000 with the same harness. */
const COUNT = Number(process.env.FUZZ_REQUESTS ?? 3000);

describe('the request path under hostile requests', function fuzz() {
  this.timeout(120_000);

  it(`survives ${COUNT} generated hostile requests: no crash, no 5xx, no hang, JSON errors with codes, no refused call executed, no resume without the right signature, no temp file left`, async () => {
    const temp = makeTempDir();
    const server = await startFuzzServer(temp.path);
    try {
      const report = await runFuzz(server, COUNT);
      expect(report.violations, JSON.stringify(report, null, 2)).to.deep.equal([]);
      expect(Object.keys(report.statuses).length).to.be.greaterThan(5);
      expect(server.executed.size).to.be.greaterThan(0);
      // Each wait takes one call: the rightly signed ones resumed them, and the fuzz reached every kind of answer there.
      expect(server.resumed.size).to.be.within(1, 3);
      expect(Object.keys(report.statuses)).to.include.members(['401', '404', '409']);
      await eventually(() => temp.files().length === 0, 5000);
    } finally {
      await server.close();
      temp.remove();
    }
  });
});
