/**
 * The Webhook node's parameters on /editor, in real Chromium: fields found by their labels, displayOptions applied
 * as values change, values checked as typed, the Options collection's add-button, saving that activates an active
 * workflow again (checked with real calls), and an address conflict shown when activating.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeInChromium } from '../support/chromium.js';

const TITLE = 'the editor page renders the Webhook node\'s parameters (Chromium)';

describeInChromium(TITLE, 20_000, (session) => {
  let page: Page;
  beforeEach(async () => {
    page = await session.browser.newPage();
  });
  afterEach(async () => {
    await page.close();
  });

  it('shows Response Data only while Response Mode is When Last Node Finishes', async () => {
    await page.goto(`${session.app.base}/editor#order-intake`);
    const responseMode = page.getByLabel('Response Mode');
    expect(await responseMode.inputValue()).to.equal('onReceived');
    expect(await page.getByLabel('Response Data').count()).to.equal(0);
    await responseMode.selectOption({ label: 'When Last Node Finishes' });
    await page.getByLabel('Response Data').waitFor();
    expect(await page.getByLabel('Response Data').inputValue()).to.equal('firstEntryJson');
    await responseMode.selectOption('responseNode');
    expect(await page.getByLabel('Response Data').count()).to.equal(0);
    // Response Code hides for "Using 'Respond to Webhook' Node" (a hide rule, not a show rule).
    expect(await page.getByLabel('Response Code').count()).to.equal(0);
  });

  it('turns HTTP Method into HTTP Methods when the setting allows several, and the addresses follow', async () => {
    await page.goto(`${session.app.base}/editor#order-intake`);
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByLabel('Allow Multiple HTTP Methods').check();
    await page.getByRole('tab', { name: 'Parameters' }).click();
    expect(await page.getByLabel('HTTP Method', { exact: true }).count()).to.equal(0);
    const methods = page.getByLabel('HTTP Methods');
    await methods.selectOption(['POST', 'PUT']);
    const listed = page.locator('[data-address="test"] .method');
    // The addresses first show the methods the draft had; wait for the list the selection made.
    await listed.filter({ hasText: 'PUT' }).waitFor();
    expect(await listed.allTextContents()).to.deep.equal(['POST', 'PUT']);
  });

  it('adds an option with the collection\'s add-button and offers only the options the values allow', async () => {
    await page.goto(`${session.app.base}/editor#order-intake`);
    await page.getByRole('button', { name: 'Add Option' }).click();
    const menu = page.locator('.add-menu');
    // Property Name is an option of "When Last Node Finishes"; this node answers at once.
    expect(await menu.getByRole('button', { name: 'Property Name' }).count()).to.equal(0);
    await menu.getByRole('button', { name: 'Response Headers' }).click();
    await page.getByRole('button', { name: 'Add Response Header' }).click();
    await page.getByLabel('Name', { exact: true }).fill('X-Order-Source');
    await page.getByLabel('Value', { exact: true }).fill('editor');
    await page.getByRole('button', { name: 'Add Response Header' }).click();
    expect(await page.locator('.group-entry').count()).to.equal(2);
  });

  it('checks values as they are typed and keeps Save from storing them', async () => {
    await page.goto(`${session.app.base}/editor#greeting`);
    const code = page.getByLabel('Response Code');
    await code.fill('700');
    await page.getByText('Value must be at most 599').waitFor();
    expect(await code.getAttribute('aria-invalid')).to.equal('true');
    const described = (await code.getAttribute('aria-describedby'))!.split(' ');
    expect(await page.locator(`[id="${described.at(-1)}"]`).textContent()).to.include('Value must be at most 599');
    await page.getByLabel('Path').fill('');
    await page.getByText('Parameter "Path" is required.').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Not saved: 2 values need a fix first').waitFor();
    await code.fill('201');
    expect(await page.getByText('Value must be at most 599').count()).to.equal(0);
  });

  it('saves new parameters and activates the workflow again, so the new address answers at once', async () => {
    await page.goto(`${session.app.base}/editor#greeting`);
    await page.getByLabel('Path').fill('hello-again');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('it was activated again').waitFor();
    const production = await page.locator('[data-address="production"] .url').textContent();
    expect(production).to.equal(`${session.app.base}/api/automation/webhook/hello-again`);
    const answer = await fetch(`${production}?name=Grace`);
    expect(await answer.text()).to.equal('Hello Grace, this text came from the workflow.\n');
    expect((await fetch(`${session.app.base}/api/automation/webhook/hello`)).status).to.equal(404);
  });

  it('shows the conflict message when a workflow wants an address another active workflow holds', async () => {
    await page.goto(`${session.app.base}/editor#order-intake-v2`);
    const item = page.locator('[data-workflow-id="order-intake-v2"]');
    // A click, not check(): the page turns the switch back off when the registry refuses.
    await item.getByRole('switch').click();
    const alert = item.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).to.match(/Not activated\. The path "orders" and method POST are already in use by workflow "Order intake" \(order-intake\)/);
    expect(await alert.textContent()).to.include('Deactivate workflow "Order intake"');
    expect(await item.getByRole('switch').isChecked()).to.equal(false);
    // Freed by deactivating the holder, the address can be taken.
    await page.locator('[data-workflow-id="order-intake"]').getByRole('switch').uncheck();
    await page.getByText('Inactive', { exact: true }).first().waitFor();
    await item.getByRole('switch').check();
    await item.getByText('Active: production address served').waitFor();
    await page.locator('[data-address="production"]').getByText('Served while the workflow is active.').waitFor();
    expect((await fetch(`${session.app.base}/api/automation/webhook/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"item":"Tea"}' })).status).to.equal(200);
  });
});
