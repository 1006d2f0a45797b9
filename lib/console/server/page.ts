/**
 * The console's page and its bundled files. The page is a shell with the bundle's script and stylesheet, served with
 * a Content-Security-Policy of its own that allows nothing but this origin's files and API: no inline script, no
 * other site, no framing. Captured test data is shown as text, and even markup slipped into it could not run.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { CONSOLE_ASSET_DIR, CONSOLE_SCRIPT, CONSOLE_STYLESHEET } from '../assets.js';
import { addHeader } from '../../webhooks/response/host-headers.js';
import { guardHeaders, notFound } from './answer.js';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function shell(title: string, base: string): string {
  const at = escapeHtml(base);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${at}/assets/${CONSOLE_STYLESHEET}">
<script type="module" src="${at}/assets/${CONSOLE_SCRIPT}"></script>
</head>
<body>
<main id="console" data-base="${at}"><p class="loading">Loading…</p></main>
<noscript><p>The webhook console needs JavaScript.</p></noscript>
</body>
</html>
`;
}

export async function sendPage(res: ServerResponse, title: string, base: string): Promise<void> {
  try {
    await stat(join(CONSOLE_ASSET_DIR, CONSOLE_SCRIPT));
  } catch {
    throw notFound('The console page is not built: its script is missing from dist/console/assets/.',
      'A published package ships it; from a checkout, run `npm run build:console`.');
  }
  const html = shell(title, base);
  guardHeaders(res);
  addHeader(res, 'content-security-policy', CONSOLE_CSP);
  res.statusCode = 200;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(html));
  res.end(html);
}

/** One file of the bundle, by its plain name (no folders, nothing hidden). */
export async function sendAsset(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
  const type = TYPES[extname(name)];
  if (type === undefined || !/^[\w.-]+$/.test(name) || name.startsWith('.')) throw notFound(`The console has no file ${name}.`);
  const path = join(CONSOLE_ASSET_DIR, name);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    throw notFound(`The console has no file ${name}.`);
  }
  addHeader(res, 'x-content-type-options', 'nosniff');
  // Chunk names carry a hash and never change; the entry files keep their names, so they are checked each time.
  addHeader(res, 'cache-control', /-[A-Z0-9]{8}\.js$/.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache');
  res.statusCode = 200;
  res.setHeader('content-type', type);
  res.setHeader('content-length', size);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(path);
    stream.once('error', reject);
    res.once('close', () => { stream.destroy(); resolve(); });
    stream.pipe(res);
  });
}
