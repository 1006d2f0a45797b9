/**
 * Real Chromium for the browser specs: Debian's `chromium` (found on PATH, or installed with apt-get as services.ts
 * does for redis-server; CHROMIUM_PATH names another build), driven by playwright-core headless, and where
 * screenshots go (git-ignored).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { findService, type Service } from './services.js';

export const CHROMIUM: Service = { binary: 'chromium', debianPackage: 'chromium' };

/** Screenshots of every browser run; those docs/console.md shows come from here, copied to docs/ by hand. */
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
