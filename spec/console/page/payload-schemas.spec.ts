/**
 * The console's Listen in real Chromium with a payload schema: a test call the schema refuses is shown on the listen
 * with each place and what was expected there (never the value sent), while it goes on listening.
 */
import { expect } from 'chai';
import type { WorkflowWebhooks } from '../../../lib/index.js';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { ORDER_JSON_SCHEMA } from '../../support/payload-schemas.js';

const CHECKED: WorkflowWebhooks = {
  workflowId: 'checked', workflowName: 'Checked orders',
  nodes: [{ name: 'Order', parameters: { path: 'checked', httpMethod: 'POST', responseMode: 'lastNode' } }],
  schemas: { Order: { body: ORDER_JSON_SCHEMA } },
};

describeConsoleInChromium('the console shows a test call its payload schema refused (Chromium)', 40_000, (session) => {
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
}, () => ({ console: { workflows: new Map([[CHECKED.workflowId, CHECKED]]) } }));
