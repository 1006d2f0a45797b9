/**
 * Real Chromium for the editor page's specs: Debian's `chromium` (found on PATH, or installed with apt-get as
 * services.ts does for redis-server; CHROMIUM_PATH names another build), driven by playwright-core headless. Also
 * the example app on a loopback port with its page bundled, and where screenshots go (git-ignored).
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { createOrdersApp } from '../../example-app/app.js';
import { buildEditorPage } from '../../example-app/editor/build.js';
import { findService, markNotRun, type Service } from './services.js';

export const CHROMIUM: Service = { binary: 'chromium', debianPackage: 'chromium' };

/** Screenshots of every browser run; README's come from here, copied to docs/ by hand. */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../screenshots/', import.meta.url));

/** The browser to drive, or undefined when this machine has none (the caller lists its specs as NOT RUN). */
export function chromiumPath(): string | undefined {
  return process.env.CHROMIUM_PATH ?? findService(CHROMIUM);
}

export async function launchChromium(executablePath: string): Promise<Browser> {
  // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return `${SCREENSHOT_DIR}${name}.png`;
}

let bundled: Promise<unknown> | undefined;

export interface EditorApp {
  /** `http://127.0.0.1:<port>` */
  base: string;
  close(): Promise<void>;
}

/** The example app on a free loopback port, with its editor page bundled (once per run). */
export async function startEditorApp(): Promise<EditorApp> {
  bundled ??= buildEditorPage();
  await bundled;
  const app = await createOrdersApp({ reportStepMs: 5 });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      // The pages' event streams stay open until their tabs close; the spec is done with them.
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** What a browser spec drives: Chromium and the example app, started once for the describe block. */
export interface ChromiumSession {
  browser: Browser;
  app: EditorApp;
}

/**
 * A describe block of browser specs: Chromium and the editor app are started before it and closed after it; on a
 * machine without Chromium the block is listed as NOT RUN instead (a failure under REQUIRE_SERVICES=1).
 */
export function describeInChromium(title: string, timeoutMs: number, specs: (session: ChromiumSession) => void): void {
  const executable = chromiumPath();
  if (executable === undefined) {
    markNotRun(title, CHROMIUM);
    return;
  }
  describe(title, function () {
    this.timeout(timeoutMs);
    const session = {} as ChromiumSession;
    before(async () => {
      [session.browser, session.app] = await Promise.all([launchChromium(executable), startEditorApp()]);
    });
    after(async () => {
      await session.browser?.close();
      await session.app?.close();
    });
    specs(session);
  });
}
