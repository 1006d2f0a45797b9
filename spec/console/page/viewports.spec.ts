/**
 * Every section of the console at a laptop's 1280×800 and a phone's 390×844, in real Chromium: each renders,
 * the page never scrolls sideways as a whole, and not one JavaScript or console error occurs.
 */
import { expect } from 'chai';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { screenshotPath } from '../../support/chromium.js';

/** Each section, and what shows once it has loaded its data. */
const SECTIONS: [string, string][] = [['#webhooks', 'tr.webhook'], ['#listen/draft', '.countdown-line, .listen-status'], ['#calls', 'tr.call'], ['#preview', '.rendered .field']];
const VIEWPORTS = [{ name: 'laptop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }];

describeConsoleInChromium('the console works at a laptop\'s and a phone\'s size (Chromium)', 60_000, (session) => {
  for (const viewport of VIEWPORTS) {
    it(`renders every section at ${viewport.width}×${viewport.height} with no JavaScript error and no sideways scroll`, async () => {
      await fetch(`${session.app.origin}/api/automation/webhook/fails`, { method: 'POST' });
      const { page, errors } = await session.open('#webhooks', viewport);
      for (const [section, loaded] of SECTIONS) {
        await page.evaluate(`window.location.hash = ${JSON.stringify(section)}`);
        await page.locator('h2:visible').first().waitFor();
        await page.locator(loaded).first().waitFor({ state: 'attached' });
        const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as number;
        expect(overflow, `${section} scrolls sideways by ${overflow} px`).to.be.at.most(0);
        if (section === '#webhooks' || section === '#calls') {
          await page.screenshot({ path: screenshotPath(`console-${section.slice(1).split('/')[0]}-${viewport.name}`), fullPage: true });
        }
      }
      expect(errors).to.deep.equal([]);
    });
  }
});
