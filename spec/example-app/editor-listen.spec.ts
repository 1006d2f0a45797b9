/**
 * The editor's Listen for test event, in real Chromium: a real HTTP call to the test address the page shows is
 * captured and shown (trigger item, output, hints) in the tab that listens and in a second tab; the countdown is
 * pushed by the server; a window that ends, a cancel and listening again all show as such.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeInChromium, screenshotPath } from '../support/chromium.js';

const TITLE = 'the editor page listens for a test event (Chromium)';

async function countdownSeconds(page: Page): Promise<number> {
  return Number((await page.locator('.countdown').textContent())?.replace(/\D/g, ''));
}

describeInChromium(TITLE, 30_000, (session) => {

  it('shows a real call to the test address on the page, with the workflow output, in this tab and in a second one', async () => {
    const context = await session.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const [page, second] = [await context.newPage(), await context.newPage()];
    await Promise.all([page.goto(`${session.app.base}/editor#signup`), second.goto(`${session.app.base}/editor#signup`)]);
    // The tab opened last is in front; Chromium slows the frames of one behind, and Playwright waits on frames.
    await page.bringToFront();
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    await second.getByText('Listening for a test event').waitFor();

    // The countdown moves without the page asking: the server pushes it every second.
    const first = await countdownSeconds(page);
    expect(first).to.be.within(115, 120);
    let next = first;
    for (const started = Date.now(); next === first && Date.now() - started < 3000;) next = await countdownSeconds(page);
    expect(next).to.be.below(first);
    expect(await page.locator('.countdown').getAttribute('aria-live')).to.equal('polite');

    const testUrl = await page.locator('[data-address="test"] .url').textContent();
    expect(testUrl).to.equal(`${session.app.base}/api/automation/webhook-test/signup`);
    const name = `Ada-${Date.now().toString(36)}`;
    const answer = await fetch(testUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
    expect(answer.status).to.equal(200);
    expect(await answer.json()).to.deep.equal({ welcome: `Welcome, ${name}!` });

    for (const tab of [page, second]) {
      await tab.getByText('Received a test call; the workflow ran.').waitFor({ timeout: 5000 });
      await tab.locator('.inputPane').getByText(`"${name}"`).waitFor();
      await tab.locator('.outputPane').getByText(`"Welcome, ${name}!"`).waitFor();
      expect(await tab.getByRole('button', { name: 'Listen for test event' }).isEnabled()).to.equal(true);
    }
    // The trigger item's JSON folds; the hint for a caller that waited shows after the run, in the output pane.
    expect(await page.locator('.inputPane details').count()).to.be.greaterThan(1);
    const hint = page.locator('.outputPane .hint-box');
    expect(await hint.getAttribute('data-hint-type')).to.equal('warning');
    expect(await hint.textContent()).to.match(/after execution.*waited for the last node/i);
    await page.screenshot({ path: screenshotPath('editor'), fullPage: true });
    await context.close();
  });

  it('opens on a draft that takes GET and POST, whose Response Data shows once Response Mode waits for the last node', async () => {
    const context = await session.browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    await page.goto(`${session.app.base}/editor`);
    expect(await page.getByLabel('Response Mode').inputValue()).to.equal('onReceived');
    expect(await page.getByLabel('Response Data').count()).to.equal(0);
    await page.getByLabel('Response Mode').selectOption({ label: 'When Last Node Finishes' });
    await page.getByLabel('Response Data').waitFor();
    expect(await page.getByLabel('HTTP Method').locator('option:checked').allTextContents()).to.deep.equal(['GET', 'POST']);

    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    const testUrl = await page.getByText('/webhook-test/').textContent();
    await page.getByRole('button', { name: 'Copy test address' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(testUrl);
    const value = `q-${Date.now().toString(36)}`;
    expect((await fetch(`${testUrl!}?value=${value}`)).status).to.equal(200);
    // Once on the page: in the trigger item's query (the inbox's output names only who handled it).
    await page.getByText(value).waitFor({ timeout: 5000 });
    await page.locator('.outputPane').getByText('"the inbox draft"').waitFor();
    await context.close();
  });

  it('says the window ended without a call, listens again, and stops when asked', async () => {
    const page = await session.browser.newPage();
    await page.goto(`${session.app.base}/editor?listenSeconds=1#signup`);
    const listen = page.getByRole('button', { name: 'Listen for test event' });
    await listen.click();
    await page.getByText('No call arrived within the 1 s window').waitFor({ timeout: 4000 });
    const testUrl = await page.locator('[data-address="test"] .url').textContent();
    const late = await fetch(testUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(late.status).to.equal(404);

    await listen.click();
    await page.getByText('Listening for a test event').waitFor();
    await page.getByRole('button', { name: 'Stop listening' }).click();
    await page.getByText('Listening was stopped before a call arrived.').waitFor();
    expect((await fetch(testUrl!, { method: 'POST', body: '{}' })).status).to.equal(404);
    await page.close();
  });

  it('listens with the parameters the page shows, saved or not, at the address they give', async () => {
    const page = await session.browser.newPage();
    await page.goto(`${session.app.base}/editor#greeting`);
    await page.getByLabel('HTTP Method').selectOption('POST');
    await page.getByLabel('Path').fill('greeting-draft');
    const test = page.locator('[data-address="test"] .url');
    await test.filter({ hasText: /\/greeting-draft$/ }).waitFor();
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    const value = `v-${Date.now().toString(36)}`;
    const answer = await fetch((await test.textContent())!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) });
    expect(answer.status).to.equal(200);
    await page.locator('.inputPane').getByText(`"${value}"`).waitFor({ timeout: 5000 });
    await page.close();
  });
});
