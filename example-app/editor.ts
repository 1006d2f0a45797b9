/**
 * How a host's own editor drives test webhooks: a route starts "Listen for test event" for a draft workflow and
 * answers, long-poll style, with the captured call once it came, or with the window's end.
 */
import type express from 'express';
import type { MemoryWebhookRegistry, WorkflowWebhooks } from 'workflow-webhooks';

export function addEditorRoutes(app: express.Express, registry: MemoryWebhookRegistry, drafts: ReadonlyMap<string, WorkflowWebhooks>): void {
  app.post('/api/editor/workflows/:workflowId/listen', async (req, res, next) => {
    try {
      const draft = drafts.get(req.params.workflowId);
      if (draft === undefined) {
        res.status(404).json({ message: `No draft workflow ${req.params.workflowId}` });
        return;
      }
      const timeoutMs = Number(req.query.timeoutMs ?? 120_000);
      const handle = await registry.listenForTest(draft, { timeoutMs });
      // The editor's own request ends listening if the user closes the editor.
      res.on('close', () => { void handle.cancel(); });
      const result = await handle.result;
      res.json(result.status === 'received'
        ? { status: result.status, trigger: result.run.items, output: result.output, error: result.error?.message }
        : result);
    } catch (error) {
      next(error);
    }
  });
}
