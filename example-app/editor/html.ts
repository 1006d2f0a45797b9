/**
 * The two HTML documents of the editor (/editor and /editor/preview): a shell with the page's landmarks, its
 * stylesheet and its script, all served from this app. The Content-Security-Policy allows nothing from elsewhere,
 * so the page works offline and a pasted description cannot pull anything in.
 */

export const PAGE_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

export type PageName = 'editor' | 'preview';

const TITLES: Record<PageName, string> = {
  editor: 'Workflows · Webhook editor',
  preview: 'Definitions preview · Webhook editor',
};

function nav(current: PageName): string {
  const link = (page: PageName, href: string, text: string): string =>
    `<a href="${href}"${page === current ? ' aria-current="page"' : ''}>${text}</a>`;
  return `<nav aria-label="Editor pages">${link('editor', '/editor', 'Workflows')}${link('preview', '/editor/preview', 'Definitions preview')}</nav>`;
}

/** The document of one page; its script fills `<main>`. */
export function pageHtml(page: PageName): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLES[page]}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/editor/assets/style.css">
<script type="module" src="/editor/assets/${page}.js"></script>
</head>
<body>
<header class="top"><span class="brand">Orders API · automation</span>${nav(page)}</header>
<main id="main" data-page="${page}"><p class="loading">Loading…</p></main>
<noscript><p>This page needs JavaScript to render the workflows and their fields.</p></noscript>
</body>
</html>
`;
}

/** Shown instead of a page whose script was not bundled yet. */
export const NOT_BUILT_TEXT = 'The editor page is not bundled yet. `npm start` bundles it (example-app/editor/page/ with esbuild); '
  + 'when starting the server another way, run `npm run build:editor` first.\n';
