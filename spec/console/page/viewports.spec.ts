/**
 * Every section of the console at a laptop's 1280×800 and a phone's 390×844, in real Chromium: each renders,
 * the page never scrolls sideways as a whole, and not one JavaScript or console error occurs. On the phone every
 * table cell lies within the screen (rows as cards, each cell labelled with its column), and at both sizes the
 * preview's editor badge sits just above its textarea's right edge, over none of it.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { screenshotPath } from '../../support/chromium.js';

/** Each section, and what shows once it has loaded its data. */
const SECTIONS: [string, string][] = [['#webhooks', 'tr.webhook'], ['#listen/draft', '.countdown-line, .listen-status'], ['#calls', 'tr.call'], ['#preview', '.rendered .field']];
const VIEWPORTS = [{ name: 'laptop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }];

interface Box { x: number; y: number; width: number; height: number }

/** Each cell of the section's tables that does not lie wholly within the screen's width, with its column. */
async function cellsOffScreen(page: Page, width: number): Promise<string[]> {
  const cells = page.locator('.table-wrap td');
  const off: string[] = [];
  for (let index = 0; index < await cells.count(); index += 1) {
    const box = await cells.nth(index).boundingBox() as Box;
    if (box.x < 0 || box.x + box.width > width) off.push(`${await cells.nth(index).getAttribute('data-label')} at ${Math.round(box.x)}–${Math.round(box.x + box.width)}`);
  }
  return off;
}

/** Whether the cell's own content (not just its box) is on screen: its column's name beside it, both visible. */
async function shownWithLabel(page: Page, cell: string, label: string, width: number): Promise<void> {
  const first = page.locator(cell).first();
  expect(await first.getAttribute('data-label')).to.equal(label);
  expect(await first.isVisible(), `${cell} visible`).to.equal(true);
  const box = await first.boundingBox() as Box;
  expect(box.x, `${cell} starts on screen`).to.be.at.least(0);
  expect(box.x + box.width, `${cell} ends on screen`).to.be.at.most(width);
}

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
        if (viewport.width < 600 && (section === '#webhooks' || section === '#calls')) {
          expect(await cellsOffScreen(page, viewport.width), `${section}: cells off the screen`).to.deep.equal([]);
          if (section === '#webhooks') await shownWithLabel(page, 'tr.webhook td.url-cell', 'URL', viewport.width);
          else await shownWithLabel(page, 'tr.call td.status', 'Status', viewport.width);
        }
        if (section === '#webhooks' || section === '#calls') {
          await page.screenshot({ path: screenshotPath(`console-${section.slice(1).split('/')[0]}-${viewport.name}`), fullPage: true });
        }
      }
      expect(errors).to.deep.equal([]);
    });
  }

  for (const viewport of VIEWPORTS) {
    it(`places the preview's editor badge just above its textarea's right edge at ${viewport.width}×${viewport.height}, over none of it`, async () => {
      const { page, errors } = await session.open('#preview', viewport);
      await page.getByText('No findings: the description is valid.').waitFor();
      const frame = page.locator('.rendered .editor-frame').filter({ has: page.locator('textarea[data-editor="htmlEditor"]') }).first();
      await frame.scrollIntoViewIfNeeded();
      const badge = await frame.locator('.editor-kind').boundingBox() as Box;
      const area = await frame.locator('textarea').boundingBox() as Box;
      expect(await frame.locator('.editor-kind').textContent()).to.equal('HTML');
      expect(badge.y + badge.height, 'the badge ends above the textarea').to.be.at.most(area.y);
      expect(area.y - (badge.y + badge.height), 'and close above it').to.be.at.most(8);
      expect(Math.abs(badge.x + badge.width - (area.x + area.width)), 'its right edge is the textarea\'s').to.be.at.most(2);
      await page.locator('.rendered .field').filter({ has: page.locator('textarea[data-editor="htmlEditor"]') }).last().screenshot({ path: screenshotPath(`console-preview-editor-${viewport.name}`) });
      expect(errors).to.deep.equal([]);
    });
  }
});
