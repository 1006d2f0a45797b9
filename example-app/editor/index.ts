/**
 * Mounts the editor a host shows its users: /editor (workflows, addresses, the Webhook node's parameters and
 * Listen for test event) and /editor/preview (any node description rendered and linted), their bundled script and
 * stylesheet under /editor/assets/, and their JSON and event-stream routes under /api/editor/.
 */
import { existsSync } from 'node:fs';
import express from 'express';
import type { WebhookEventListener, WebhookRegistry } from 'workflow-webhooks';
import { PAGE_BUNDLE_DIR } from './bundle-paths.js';
import { NOT_BUILT_TEXT, PAGE_CSP, pageHtml, type PageName } from './html.js';
import { EditorListens } from './listens.js';
import { previewRoutes } from './preview-api.js';
import { workflowRoutes, type EditorStore, type WorkflowRoutesOptions } from './workflows-api.js';

export type { EditorStore } from './workflows-api.js';

/**
 * Returns the listener to give the webhook middleware as its `onEvent` option: with it, a test run that waits for
 * a call shows its resume address on the page.
 */
export function addEditorPage(app: express.Express, registry: WebhookRegistry, store: EditorStore, options: WorkflowRoutesOptions): WebhookEventListener {
  const listens = new EditorListens(registry);

  const page = (name: PageName): express.RequestHandler => (_req, res) => {
    // Checked per request: `npm start` bundles before the server starts, a spec may bundle after the app is built.
    if (!existsSync(`${PAGE_BUNDLE_DIR}${name}.js`)) {
      res.status(503).type('text/plain').send(NOT_BUILT_TEXT);
      return;
    }
    res.set({ 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store' }).type('html').send(pageHtml(name));
  };
  app.get('/editor', page('editor'));
  app.get('/editor/preview', page('preview'));
  app.use('/editor/assets', express.static(PAGE_BUNDLE_DIR, { index: false }), (_req, res) => {
    res.status(404).type('text/plain').send('No such file of the editor page.\n');
  });

  app.use('/api/editor/preview', previewRoutes());
  app.use('/api/editor', workflowRoutes(registry, store, listens, options));
  return (event) => listens.webhookEvent(event);
}
