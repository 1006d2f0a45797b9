/**
 * The console's Listen shows a test run that waits for a call, in real Chromium: the run suspends, its signed resume
 * address shows with its methods, and the button calls it as the outside world would, shows the answer, and the
 * address is used up.
 */
import { expect } from 'chai';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { screenshotPath } from '../../support/chromium.js';

describeConsoleInChromium('the console shows a test run that waits for a call (Chromium)', 30_000, (session) => {
  it('shows the resume address of a run that suspended, and its button resumes the run', async () => {
    const { page, errors } = await session.open('#listen/approval');
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    const testUrl = await page.locator('[data-address="test"] .url').first().textContent();
    expect((await fetch(testUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":64}' })).status).to.equal(200);

    const box = page.locator('.wait-box');
    await box.getByText('The run suspended itself').waitFor({ timeout: 5000 });
    const resumeUrl = await box.locator('[data-address="resume"] .url').textContent();
    expect(resumeUrl).to.match(new RegExp(`^${session.app.origin}/api/automation/webhook-waiting/[\\w-]{22}\\?signature=`));
    expect(await box.locator('.methods .method').allTextContents()).to.deep.equal(['POST']);
    await page.screenshot({ path: screenshotPath('console-waiting'), fullPage: true });

    await box.getByRole('button', { name: 'Call resume address' }).click();
    await box.getByText('The resume address answered 200').waitFor({ timeout: 5000 });
    await box.getByText('A call to the resume address resumed the run.').waitFor();
    expect((await fetch(resumeUrl!, { method: 'POST' })).status).to.equal(409);
    expect(errors).to.deep.equal([]);
  });
});
