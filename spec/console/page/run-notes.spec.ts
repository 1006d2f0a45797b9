/**
 * What the console says beside a test run's output, in real Chromium: an output's file is labelled by the rule that
 * applies to output files (the console never keeps them), not by the size limit of a call's files; and the warning
 * about a caller waiting for a lastNode run shows only when the run took half the time a caller may wait or more,
 * never after a fast run.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { WebhookExecutor } from '../../../lib/index.js';
import { screenshotPath } from '../../support/chromium.js';
import { describeConsoleInChromium } from '../../support/console-browser.js';

/** The middleware's deadline here: a caller may wait 2 s, so a run of 1.2 s is past half of it. */
const DEADLINE_MS = 2000;
const SLOW_RUN_MS = 1200;

/** `draft` answers at once with a 5 kB file in its output; `status` (lastNode too) takes SLOW_RUN_MS. */
const executor: WebhookExecutor = async (run) => {
  if (run.workflowId === 'status') {
    await new Promise((resolve) => setTimeout(resolve, SLOW_RUN_MS));
    return { items: [{ json: { status: 'shipped' } }] };
  }
  const data = Buffer.alloc(5 * 1024, 'a');
  return { items: [{ json: { report: 'ready' }, binary: { report: { data, mimeType: 'text/plain', fileName: 'report.txt', bytes: data.length, fileSize: '5.12 kB' } } }] };
};

async function runOnce(page: Page, call: (testUrl: string) => Promise<Response>): Promise<void> {
  const testUrl = await page.locator('[data-address="test"] .url').first().textContent() as string;
  await page.getByRole('button', { name: 'Listen for test event' }).click();
  await page.getByText('Listening for a test event').waitFor();
  expect((await call(testUrl)).status).to.equal(200);
  await page.getByText('Received a test call; the workflow ran.').waitFor({ timeout: 5000 });
}

describeConsoleInChromium('the console\'s notes beside a test run\'s output (Chromium)', 30_000, (session) => {
  it('labels an output file by the rule for output files, and warns about nothing after a fast lastNode run', async () => {
    const { page, errors } = await session.open('#listen/draft');
    await runOnce(page, (url) => fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }));
    const output = page.locator('.outputPane');
    await output.getByText('report.txt').waitFor();
    expect(await output.locator('.not-kept').textContent()).to.equal('not kept: the console keeps the files a test call brought, never those of the output');
    expect(await output.textContent()).to.not.include('larger than the console keeps');
    expect(await output.locator('.hint-warning').count(), 'warnings after a fast run').to.equal(0);
    expect(await output.textContent()).to.not.include('caller waited').and.to.not.include('hosted offering');
    await page.screenshot({ path: screenshotPath('console-run-fast'), fullPage: true });
    expect(errors).to.deep.equal([]);
  });

  it('warns when the lastNode run took half the time a caller may wait or more, naming both durations', async () => {
    const { page, errors } = await session.open('#listen/status');
    await runOnce(page, (url) => fetch(url.replace(':orderId', '42')));
    const warning = page.locator('.outputPane .hint-warning');
    await warning.waitFor();
    const text = await warning.textContent() as string;
    expect(text).to.match(/The caller waited 1\.\d\d s for this run, at least half of the 2\.00 s a caller may wait/).and.to.include('cut off with 524');
    await page.screenshot({ path: screenshotPath('console-run-slow'), fullPage: true });
    expect(errors).to.deep.equal([]);
  });
}, () => ({ executor, middleware: { responseTimeoutMs: DEADLINE_MS } }));
