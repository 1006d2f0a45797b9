/**
 * The console's browser specs: real Chromium (as the other page specs, NOT RUN without it) against a console app of
 * spec/support/console-app.ts, with the page bundled once per run. Every page a spec opens counts its JavaScript
 * errors and console errors; a spec ends by asserting there were none.
 */
import type { Browser, Page } from 'playwright-core';
import { buildConsolePage } from '../../scripts/build-console.js';
import { CHROMIUM, chromiumPath, launchChromium } from './chromium.js';
import { CONSOLE_BASE, startConsoleApp, type ConsoleApp, type ConsoleAppOptions } from './console-app.js';
import { markNotRun } from './services.js';

let bundled: Promise<unknown> | undefined;

export interface ConsolePage {
  page: Page;
  /** JavaScript errors and console errors seen so far. */
  errors: string[];
}

export interface ConsoleBrowserSession {
  browser: Browser;
  app: ConsoleApp;
  /** The console's address: `http://127.0.0.1:<port>/admin/webhooks/`. */
  url: string;
  /** A new page (its own context) at the given size, watching for errors, opened at `hash`. */
  open(hash?: string, viewport?: { width: number; height: number }): Promise<ConsolePage>;
}

export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return errors;
}

/**
 * A describe block of console browser specs: Chromium and the app start before it and close after it; on a machine
 * without Chromium the block is listed as NOT RUN instead (a failure under REQUIRE_SERVICES=1).
 */
export function describeConsoleInChromium(
  title: string, timeoutMs: number, specs: (session: ConsoleBrowserSession) => void, appOptions: () => ConsoleAppOptions = () => ({}),
): void {
  const executable = chromiumPath();
  if (executable === undefined) {
    markNotRun(title, CHROMIUM);
    return;
  }
  describe(title, function () {
    this.timeout(timeoutMs);
    const session = {} as ConsoleBrowserSession;
    const contexts: { close(): Promise<void> }[] = [];
    before(async function () {
      this.timeout(60_000);
      bundled ??= buildConsolePage();
      await bundled;
      [session.browser, session.app] = await Promise.all([launchChromium(executable), startConsoleApp(appOptions())]);
      session.url = `${session.app.origin}${CONSOLE_BASE}/`;
      session.open = async (hash = '', viewport = { width: 1280, height: 800 }) => {
        const context = await session.browser.newContext({ viewport });
        contexts.push(context);
        const page = await context.newPage();
        const errors = watchErrors(page);
        await page.goto(`${session.url}${hash}`);
        return { page, errors };
      };
    });
    afterEach(async () => {
      for (const context of contexts.splice(0)) await context.close();
    });
    after(async () => {
      await session.browser?.close();
      await session.app?.close();
    });
    specs(session);
  });
}
