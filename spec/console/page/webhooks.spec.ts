/**
 * The console's Webhooks section in real Chromium: every active address of a registry with several kinds
 * (production, a test listen, a suspended run's wait) with its full URL and guards, filtered by text and by kind,
 * and the OpenAPI document one click away.
 */
import { expect } from 'chai';
import { CONSOLE_WORKFLOWS, WEBHOOK_BASE } from '../../support/console-app.js';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { screenshotPath } from '../../support/chromium.js';

describeConsoleInChromium('the console lists every active webhook (Chromium)', 30_000, (session) => {
  it('shows production, test and waiting addresses with their URL and guards, and filters them', async () => {
    const draft = CONSOLE_WORKFLOWS.find((one) => one.workflowId === 'draft');
    const listen = await session.app.registry.listenForTest(draft!, { timeoutMs: 60_000 });
    expect((await fetch(`${session.app.origin}${WEBHOOK_BASE}/webhook/approve`, { method: 'POST' })).status).to.equal(200);
    const { page, errors } = await session.open('#webhooks');
    const rows = page.locator('tr.webhook');
    await rows.first().waitFor();
    expect(await page.locator('tr.webhook[data-kind="production"]').count()).to.equal(5);
    expect(await page.locator('tr.webhook[data-kind="test"]').count()).to.equal(1);
    expect(await page.locator('tr.webhook[data-kind="waiting"]').count()).to.equal(1);

    const status = page.locator('tr.webhook[data-kind="production"][data-workflow-id="status"]');
    expect(await status.locator('code.url').textContent()).to.equal(`${session.app.origin}${WEBHOOK_BASE}/webhook/orders/:orderId`);
    expect(await status.textContent()).to.include('GET').and.to.include('PUT').and.to.include('lastNode');
    const partner = await page.locator('tr.webhook[data-workflow-id="partner"]').textContent();
    expect(partner).to.include('headerAuth').and.to.include('Partner API key').and.to.include('10.0.0.0/8')
      .and.to.include('https://partner.example.com');
    expect(await page.locator('tr.webhook[data-kind="test"] code.url').textContent()).to.equal(`${session.app.origin}${WEBHOOK_BASE}/webhook-test/signup`);
    expect(await page.locator('tr.webhook[data-kind="waiting"] code.url').textContent()).to.match(/\/webhook-waiting\/[\w-]{22}$/);
    expect(await page.content()).not.to.include('signature=');

    await page.getByLabel('Filter', { exact: true }).fill('orders');
    await page.locator('.webhook-count').getByText('2 of 7 webhooks').waitFor();
    await page.getByLabel('Filter', { exact: true }).fill('');
    await page.getByLabel('Kind').selectOption({ label: 'Waiting' });
    await page.locator('.webhook-count').getByText('1 of 7 webhooks').waitFor();
    expect(await page.locator('tr.webhook:visible').count()).to.equal(1);
    await page.getByLabel('Kind').selectOption({ label: 'All' });

    expect(await page.locator('a.openapi').getAttribute('href')).to.equal(`${session.app.origin}${WEBHOOK_BASE}/openapi.json`);
    await page.screenshot({ path: screenshotPath('console-webhooks'), fullPage: true });
    expect(errors).to.deep.equal([]);
    await listen.cancel();
  });
});
