/**
 * How a host's own editor drives webhooks: a route starts "Listen for test event" for a draft workflow and
 * answers, long-poll style, with the captured call once it came, or with the window's end; two more routes
 * activate and deactivate a workflow the host knows. Any registry works: with a shared one, a listen or an
 * activation made here holds on every instance.
 */
import type express from 'express';
import { WebhookError, type WebhookRegistry, type WorkflowWebhooks } from 'workflow-webhooks';

export interface EditorWorkflows {
  /** Drafts that can listen for a test event. */
  drafts: ReadonlyMap<string, WorkflowWebhooks>;
  /** Workflows that can be activated and deactivated. */
  workflows?: ReadonlyMap<string, WorkflowWebhooks>;
}

/** A registry's refusal as JSON with its own status (409 for a conflict, 503 while Redis is away); else Express'. */
function answerError(error: unknown, res: express.Response, next: express.NextFunction): void {
  if (error instanceof WebhookError) res.status(error.status).json(error.toJSON());
  else next(error);
}

export function addEditorRoutes(app: express.Express, registry: WebhookRegistry, known: EditorWorkflows): void {
  const { drafts, workflows = new Map<string, WorkflowWebhooks>() } = known;

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
      answerError(error, res, next);
    }
  });

  app.put('/api/editor/workflows/:workflowId/active', async (req, res, next) => {
    try {
      const workflow = workflows.get(req.params.workflowId);
      if (workflow === undefined) {
        res.status(404).json({ message: `No workflow ${req.params.workflowId}` });
        return;
      }
      const webhooks = await registry.activate(workflow);
      res.json({ workflowId: workflow.workflowId, active: true, webhooks: webhooks.map(({ method, path }) => `${method} ${path}`) });
    } catch (error) {
      answerError(error, res, next);
    }
  });

  app.delete('/api/editor/workflows/:workflowId/active', async (req, res, next) => {
    try {
      const { workflowId } = req.params;
      if (!workflows.has(workflowId)) {
        res.status(404).json({ message: `No workflow ${workflowId}` });
        return;
      }
      // `wasActive` false: nothing to free (deactivating twice is not an error).
      res.json({ workflowId, active: false, wasActive: await registry.deactivate(workflowId) });
    } catch (error) {
      answerError(error, res, next);
    }
  });
}
