/**
 * The console's Recent calls in real Chromium: a failing call shows up live (no reload), with its status, error code
 * and call id, and the errors-only filter keeps it; a path parameter named like a credential is never in the page.
 */
import { expect } from 'chai';
import { WEBHOOK_BASE } from '../../support/console-app.js';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { screenshotPath } from '../../support/chromium.js';

describeConsoleInChromium('the console shows recent calls live (Chromium)', 30_000, (session) => {
  it('shows a failing call live, without a reload, with its code and call id', async () => {
    const { page, errors } = await session.open('#calls');
    await page.locator('.live').getByText('Live').waitFor();
    await fetch(`${session.app.origin}${WEBHOOK_BASE}/webhook/orders`, { method: 'POST', headers: { 'x-request-id': 'call-ok-1' } });
    const failed = await fetch(`${session.app.origin}${WEBHOOK_BASE}/webhook/fails`, { method: 'POST', headers: { 'x-request-id': 'call-failed-1' } });
    expect(failed.status).to.equal(500);
    const row = page.locator('tr.call[data-call-id="call-failed-1"]');
    await row.waitFor();
    expect(await row.locator('.code').textContent()).to.equal('WORKFLOW_FAILED');
    expect(await row.locator('.status').textContent()).to.equal('500');
    expect(await row.locator('.call-id').textContent()).to.equal('call-failed-1');
    expect(await row.getAttribute('class')).to.include('failed');
    await page.locator('tr.call[data-call-id="call-ok-1"]').waitFor();
    await page.getByLabel('Errors only').check();
    await page.locator('tr.call[data-call-id="call-ok-1"]').waitFor({ state: 'hidden' });
    expect(await row.isVisible()).to.equal(true);
    await page.getByLabel('Errors only').uncheck();
    await page.screenshot({ path: screenshotPath('console-calls'), fullPage: true });
    expect(errors).to.deep.equal([]);
  });

  it('shows a call whose path carries a credential parameter (reset/:token) with [redacted] in its place, anywhere in the page', async () => {
    const token = 'rst_live_5e4d3c2b1a0f9e8d';
    await session.app.registry.activate({ workflowId: 'reset', nodes: [{ name: 'Webhook', parameters: { path: 'reset/:token', httpMethod: 'POST' } }] });
    const { page, errors } = await session.open('#calls');
    await page.locator('.live').getByText('Live').waitFor();
    await fetch(`${session.app.origin}${WEBHOOK_BASE}/webhook/reset/${token}`, { method: 'POST', headers: { 'x-request-id': 'call-reset-1' } });
    const row = page.locator('tr.call[data-call-id="call-reset-1"]');
    await row.waitFor();
    expect(await row.locator('.path code').getAttribute('title')).to.equal('/webhook/reset/[redacted]');
    await page.reload();
    await row.waitFor();
    expect(await page.content()).to.not.include(token);
    expect(errors).to.deep.equal([]);
  });
});
