/**
 * Where the console page's bundle lives: `dist/console/assets/` beside the built entry point. Run from source (the
 * `workflow-webhooks-source` condition, as the specs and the example do), the same folder of dist/, which
 * `npm run build:console` fills.
 */
import { fileURLToPath } from 'node:url';

const fromSource = import.meta.url.endsWith('.ts');

export const CONSOLE_ASSET_DIR = fileURLToPath(new URL(fromSource ? '../../dist/console/assets/' : './assets/', import.meta.url));

/** The files the page's HTML names; the build writes them (and the chunks they import). */
export const CONSOLE_SCRIPT = 'console.js';
export const CONSOLE_STYLESHEET = 'console.css';
