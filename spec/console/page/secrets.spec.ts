/**
 * The Listen section in real Chromium after a call full of credentials (Basic, a cookie, an API key header, secret
 * query parameters, a file named after a token) to a workflow that passes the trigger item through and repeats the
 * password inside a string: neither the Input pane nor the Output pane, nor anything else in the page's HTML, holds a
 * secret; `[redacted]` stands in their place.
 */
import { expect } from 'chai';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { CONSOLE_WORKFLOWS, WEBHOOK_BASE } from '../../support/console-app.js';
import { SECRET_WORKFLOWS, secretCredentials, secretEchoExecutor, secretsOf, sendSecretCall } from '../../support/secret-calls.js';

describeConsoleInChromium('the console shows no credential of a test call (Chromium)', 30_000, (session) => {
  it('keeps every secret of the call out of the Input and Output panes and out of the whole page', async () => {
    const { page, errors } = await session.open('#listen/guarded-basic');
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    expect(await sendSecretCall(`${session.app.origin}${WEBHOOK_BASE}/webhook-test`, 'basic')).to.equal(200);
    await page.getByText('Received a test call; the workflow ran.').waitFor({ timeout: 5000 });
    // The output's second item, the one that repeats the secrets, is on the page.
    await page.locator('.outputPane .json-key', { hasText: /^note: $/ }).waitFor();

    const input = await page.locator('.inputPane').textContent() ?? '';
    const output = await page.locator('.outputPane').textContent() ?? '';
    const html = await page.content();
    const shown = secretsOf().filter((secret) => input.includes(secret) || output.includes(secret) || html.includes(secret));
    expect(shown).to.deep.equal([]);
    expect(input).to.include('"trace-1"').and.to.include('"[redacted]"').and.to.include('statement-[redacted].pdf');
    expect(output).to.include('"The caller signed in with [redacted]."').and.to.include('"https://example.com/callback?token=[redacted]"');
    expect(errors).to.deep.equal([]);
  });
}, () => ({
  executor: secretEchoExecutor,
  middleware: { credentials: secretCredentials },
  console: { workflows: new Map([...CONSOLE_WORKFLOWS, ...SECRET_WORKFLOWS].map((workflow) => [workflow.workflowId, workflow])) },
}));
