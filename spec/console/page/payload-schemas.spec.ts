/**
 * The console in real Chromium with a payload schema: a test call the schema refuses is shown on the listen with
 * each place and what was expected there (never the value sent), while it goes on listening; and Recent calls lists
 * a refused call's places as text, a property name that looks like markup included.
 */
import { expect } from 'chai';
import type { WorkflowWebhooks } from '../../../lib/index.js';
import { WEBHOOK_BASE } from '../../support/console-app.js';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { ORDER_JSON_SCHEMA } from '../../support/payload-schemas.js';

const CHECKED: WorkflowWebhooks = {
  workflowId: 'checked', workflowName: 'Checked orders',
  nodes: [{ name: 'Order', parameters: { path: 'checked', httpMethod: 'POST', responseMode: 'lastNode' } }],
  schemas: { Order: { body: ORDER_JSON_SCHEMA } },
};

describeConsoleInChromium('the console shows calls their payload schema refused (Chromium)', 40_000, (session) => {
  it('lists where the call did not match and what was expected, and keeps listening', async () => {
    const { page, errors } = await session.open('#listen/checked');
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    const answer = await fetch(`${session.app.origin}/api/automation/webhook-test/checked`, {
      method: 'POST', body: JSON.stringify({ name: 'tea', qty: 'sk_live_secret' }), headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).to.equal(422);
    const note = page.locator('.refused');
    await note.getByText('/body/qty').waitFor();
    const text = await note.textContent();
    expect(text).to.include('422 PAYLOAD_INVALID').and.to.include('/body/name').and.to.include('must be integer').and.not.to.include('sk_live_secret');
    expect(await page.getByText('Listening for a test event').count()).to.equal(1);
    expect(errors).to.deep.equal([]);
  });

  it('lists in Recent calls where a refused call did not match and what was expected, as text, never its values or its own keys', async () => {
    // A schema may come from an attacker too: the property it names is markup, shown as text.
    const markup = '<img src=x onerror="window.__pwned=1">';
    await session.app.registry.activate({
      workflowId: 'counts', nodes: [{ name: 'Counts', parameters: { path: 'counts', httpMethod: 'POST' } }],
      schemas: { Counts: { body: { type: 'object', required: ['qty'], properties: { qty: { type: 'integer' }, [markup]: { type: 'integer' } }, additionalProperties: { type: 'integer' } } } },
    });
    const { page, errors } = await session.open('#calls');
    await page.locator('.live').getByText('Live').waitFor();
    const answer = await fetch(`${session.app.origin}${WEBHOOK_BASE}/webhook/counts`, {
      method: 'POST', body: JSON.stringify({ qty: 'sk_live_secret', [markup]: 'x', sk_live_key: 'y' }), headers: { 'content-type': 'application/json', 'x-request-id': 'call-refused-1' },
    });
    expect(answer.status).to.equal(422);
    const row = page.locator('tr.call[data-call-id="call-refused-1"]');
    await row.waitFor();
    expect(await row.locator('.code .payload-errors li').allTextContents()).to.have.members([
      `/body/${markup} must be integer`, '/body/qty must be integer', '/body/* must be integer',
    ]);
    expect(await row.locator('img').count()).to.equal(0);
    expect(await page.evaluate('typeof window.__pwned')).to.equal('undefined');
    // The filter finds a call by the place it did not match.
    await page.getByLabel('Filter calls').fill('/body/qty');
    expect(await row.isVisible()).to.equal(true);
    expect(await page.content()).to.not.include('sk_live_secret').and.to.not.include('sk_live_key');
    expect(errors).to.deep.equal([]);
  });
}, () => ({ console: { workflows: new Map([[CHECKED.workflowId, CHECKED]]) } }));
