/**
 * The console's Webhooks section in real Chromium shows a limited address's rate limit and how many recent calls it
 * refused, beside its other guards.
 */
import { expect } from 'chai';
import { MemoryWebhookRegistry } from '../../../lib/index.js';
import { WEBHOOK_BASE } from '../../support/console-app.js';
import { describeConsoleInChromium } from '../../support/console-browser.js';

const registry = new MemoryWebhookRegistry();

describeConsoleInChromium('the console shows rate limits (Chromium)', 30_000, (session) => {
  it('shows the limit of a limited address and its refusals among the recent calls', async () => {
    await registry.activate({
      workflowId: 'limited', nodes: [{ name: 'Webhook', parameters: { path: 'limited', httpMethod: 'POST' } }],
      settings: { rateLimit: { limit: 1, windowMs: 60_000, key: 'ip' } },
    });
    const statuses = [];
    for (let call = 0; call < 3; call += 1) statuses.push((await fetch(`${session.app.origin}${WEBHOOK_BASE}/webhook/limited`, { method: 'POST' })).status);
    expect(statuses).to.deep.equal([200, 429, 429]);
    const { page, errors } = await session.open('#webhooks');
    const limited = page.locator('tr.webhook[data-workflow-id="limited"]');
    await limited.waitFor();
    expect(await limited.locator('.chip-limit').allTextContents()).to.deep.equal(['rate limit: 1 per 60 s per caller address']);
    expect(await limited.locator('.chip-refused').textContent()).to.equal('2 refused (rate limit) among the recent calls');
    expect(await page.locator('tr.webhook[data-workflow-id="orders"] .chip-limit').count()).to.equal(0);
    expect(errors).to.deep.equal([]);
  });
}, () => ({ registry }));
