/**
 * Mocha root hook (loaded by .mocharc.cjs "require") that ends a run outliving its last test. Mocha runs without
 * `exit`, so it waits for the event loop to empty: a spec that leaves a server, pool or client open would hang the
 * run (and .ci/run) instead of failing it. After the last test a grace period starts (SPEC_HANG_GRACE_MS, 20 s
 * unless set) on a timer that holds nothing open itself; a process still alive when it ends names what holds its
 * loop and exits with mocha's failure count, or 1 when every test passed.
 */
const DEFAULT_GRACE_MS = 20_000;

function graceMs(): number {
  const setting = process.env.SPEC_HANG_GRACE_MS;
  if (setting === undefined || setting === '') return DEFAULT_GRACE_MS;
  const ms = Number(setting);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`SPEC_HANG_GRACE_MS must be a whole number of milliseconds, not "${setting}"`);
  return ms;
}

/** What holds the loop, e.g. "TCPServerWrap ×1, TCPSocketWrap ×3". */
function holders(): string {
  const counts = new Map<string, number>();
  for (const resource of process.getActiveResourcesInfo()) counts.set(resource, (counts.get(resource) ?? 0) + 1);
  return [...counts].map(([resource, count]) => `${resource} ×${count}`).join(', ') || 'a handle Node does not name';
}

function endHungRun(grace: number): void {
  process.stderr.write(`\n  HUNG RUN: ${grace} ms after the last test the process is still held open by ${holders()}.\n`
    + '  Every spec closes what it opens (servers, pools, clients, registries) in after/afterEach, whatever happened.\n');
  // Mocha's own 'exit' listener, added when the run ended, sets the exit code to its failure count; this one runs
  // after it, so failed tests keep their count and a run whose tests all passed still fails.
  process.once('exit', () => {
    if (!process.exitCode) process.exitCode = 1;
  });
  process.exit();
}

export const mochaHooks = {
  afterAll(): void {
    // A watching mocha stays alive on purpose.
    if (process.argv.includes('--watch') || process.argv.includes('-w')) return;
    const grace = graceMs();
    setTimeout(() => endHungRun(grace), grace).unref();
  },
};
