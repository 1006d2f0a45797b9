/**
 * The console's defences as a browser meets them, in real Chromium: a page of another site cannot make the console
 * listen (a form post or a credentialed fetch without the CSRF token is refused, and nothing starts), the page runs
 * under its own strict Content-Security-Policy, and a browser the host does not authorize sees a refusal and nothing
 * of the console.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { CONSOLE_BASE, startConsoleApp } from '../../support/console-app.js';
import { describeConsoleInChromium, watchErrors } from '../../support/console-browser.js';

/** A page on another site (localhost is not 127.0.0.1) that posts to the console as soon as it opens. */
function evilSite(target: string): Promise<Server> {
  const html = `<!doctype html><title>Win a prize</title>
<form id="f" method="POST" action="${target}" enctype="text/plain"><input name='{"timeoutMs":60000,"x":"' value='"}'></form>
<script>
fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{}' })
  .finally(() => document.getElementById('f').submit());
</script>`;
  const server = createServer((_req, res) => { res.setHeader('content-type', 'text/html'); res.end(html); });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describeConsoleInChromium('the console keeps other sites and strangers out (Chromium)', 30_000, (session) => {
  it('refuses a cross-site form post and fetch without the CSRF token, and starts no listen', async () => {
    const { page } = await session.open('#listen/draft');
    await page.getByRole('button', { name: 'Listen for test event' }).waitFor();
    const target = `${session.app.origin}${CONSOLE_BASE}/api/workflows/draft/listen`;
    const evil = await evilSite(target);
    try {
      const refusals: number[] = [];
      page.on('response', (response) => { if (response.url() === target) refusals.push(response.status()); });
      const navigation = page.waitForURL(target);
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      await navigation;
      expect(await page.locator('body').textContent()).to.include('CONSOLE_CSRF_INVALID');
      expect(refusals).to.include(403);
      expect(await session.app.registry.listTestWebhooks!()).to.deep.equal([]);
    } finally {
      evil.close();
    }
  });

  it('serves the page under a strict Content-Security-Policy of its own', async () => {
    const answer = await fetch(session.url);
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("default-src 'none'").and.to.include("script-src 'self'").and.to.include("frame-ancestors 'none'");
    expect(answer.headers.get('x-content-type-options')).to.equal('nosniff');
  });

  it('shows a browser the host does not authorize a refusal, and nothing of the console', async () => {
    const guarded = await startConsoleApp({ console: { public: undefined, authorize: () => 403 } as never });
    try {
      const context = await session.browser.newContext();
      const page = await context.newPage();
      const errors = watchErrors(page);
      const answer = await page.goto(`${guarded.origin}${CONSOLE_BASE}/`);
      expect(answer?.status()).to.equal(403);
      const text = await page.locator('body').textContent() ?? '';
      expect(text).to.include('CONSOLE_FORBIDDEN').and.not.to.include('orders').and.not.to.include('Order intake');
      expect(await page.locator('#console').count()).to.equal(0);
      await context.close();
      // The refusal is the host's JSON, not the console's page: the browser's own requests beside it (a favicon) are not ours.
      expect(errors.filter((error) => !error.includes('Failed to load resource'))).to.deep.equal([]);
    } finally {
      await guarded.close();
    }
  });
});
