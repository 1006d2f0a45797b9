/**
 * The console's Listen in real Chromium: listen, the countdown moving, a real multipart call with curl's
 * semantics to the test address, and the captured item (headers with credentials redacted, body, a file with a
 * download link) with its curl line, in the tab that listens and in a second one.
 */
import { expect } from 'chai';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { screenshotPath } from '../../support/chromium.js';

describeConsoleInChromium('the console listens for a test event (Chromium)', 40_000, (session) => {
  it('captures a call to the test address and shows its item, its file and a curl line, in every tab', async () => {
    const { page, errors } = await session.open('#listen/draft');
    const { page: second, errors: secondErrors } = await session.open('#listen/draft');
    await page.bringToFront();
    const testUrl = await page.locator('[data-address="test"] .url').first().textContent();
    expect(testUrl).to.equal(`${session.app.origin}/api/automation/webhook-test/signup`);
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    await second.getByText('Listening for a test event').waitFor();
    const seconds = async (): Promise<number> => Number((await page.locator('.countdown').textContent())?.replace(/\D/g, ''));
    const first = await seconds();
    expect(first).to.be.within(100, 120);
    let next = first;
    for (const started = Date.now(); next === first && Date.now() - started < 3000;) next = await seconds();
    expect(next).to.be.below(first);

    const form = new FormData();
    form.append('name', 'Grace');
    form.append('contract', new Blob([Buffer.from('%PDF-1.7 console spec')], { type: 'application/pdf' }), 'contract.pdf');
    const answer = await fetch(`${testUrl!}?ref=console`, { method: 'POST', body: form, headers: { authorization: 'Bearer top-secret' } });
    expect(answer.status).to.equal(200);

    for (const tab of [page, second]) {
      await tab.getByText('Received a test call; the workflow ran.').waitFor({ timeout: 5000 });
      await tab.locator('.inputPane').getByText('"Grace"').first().waitFor();
      expect(await tab.locator('.inputPane').textContent()).to.include('contract.pdf').and.to.include('application/pdf')
        .and.to.include('[redacted]').and.not.to.include('top-secret');
    }
    const link = page.locator('.inputPane a.download').first();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).to.equal('contract.pdf');
    const curl = await page.locator('pre.curl').textContent();
    expect(curl).to.include(`curl -X POST '${testUrl!}?ref=console'`).and.to.include("--form-string 'name=Grace'")
      .and.to.include("-F 'contract=@<path to contract.pdf>;type=application/pdf'").and.not.to.include('top-secret');
    expect(await page.locator('.outputPane').textContent()).to.include('received');
    await page.screenshot({ path: screenshotPath('console-listen'), fullPage: true });
    expect([...errors, ...secondErrors]).to.deep.equal([]);
  });

  it('says so when listening is stopped, and listens again', async () => {
    const { page, errors } = await session.open('#listen/draft');
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByRole('button', { name: 'Stop listening' }).click();
    await page.getByText(/Listening was stopped/).waitFor();
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    await page.getByRole('button', { name: 'Stop listening' }).click();
    expect(errors).to.deep.equal([]);
  });
});
