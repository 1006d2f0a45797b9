/**
 * The editor page's workflow routes: the workflows with their state and full addresses, the Webhook node's
 * description, a node's addresses for parameters not saved yet, saving a node's parameters (checked with
 * validateParameters; an active workflow is activated again, so the change is served at once), and the test
 * listens with their event stream. Activating and deactivating stay with the routes of ../editor.ts.
 */
import express from 'express';
import {
  resolveWorkflowWebhooks, WebhookError, type WebhookRegistry, type WebhookNode, type WorkflowWebhooks,
} from 'workflow-webhooks';
import { validateParameters, WEBHOOK_NODE_DESCRIPTION } from 'workflow-webhooks/definitions';
import type { Address, Addresses, ApiError, WorkflowListing, WorkflowSummary } from './protocol.js';
import type { EditorListens } from './listens.js';
import { WEBHOOK_NODE_HINTS } from './node-hints.js';

export interface EditorStore {
  /** Workflows the page can activate and deactivate (the app's own map; saving replaces entries). */
  workflows: Map<string, WorkflowWebhooks>;
  /** Drafts that only listen for test events. */
  drafts: Map<string, WorkflowWebhooks>;
}

export interface WorkflowRoutesOptions {
  /** Where the host mounts the webhook middleware, e.g. `/api/automation`. */
  webhookMount: string;
  /** The middleware's test prefix (default `webhook-test`). */
  testPrefix?: string;
  /** The longest window a tab may ask for (default 120 s, the platform's). */
  maxListenMs?: number;
  /** The workflow /editor opens when its address names none (default: the first one). */
  startWith?: string;
}

type Found = { workflow: WorkflowWebhooks; kind: 'workflow' | 'draft'; map: Map<string, WorkflowWebhooks> };

function find(store: EditorStore, workflowId: string): Found | undefined {
  const workflow = store.workflows.get(workflowId);
  if (workflow !== undefined) return { workflow, kind: 'workflow', map: store.workflows };
  const draft = store.drafts.get(workflowId);
  return draft === undefined ? undefined : { workflow: draft, kind: 'draft', map: store.drafts };
}

function withParameters(workflow: WorkflowWebhooks, parameters: Readonly<Record<string, Record<string, unknown>>>): WorkflowWebhooks {
  return {
    ...workflow,
    // What a tab sends is JSON nobody checked yet: activation (resolveWorkflowWebhooks) checks every parameter.
    nodes: workflow.nodes.map((node): WebhookNode => (Object.hasOwn(parameters, node.name)
      ? { ...node, parameters: parameters[node.name] as unknown as WebhookNode['parameters'] }
      : node)),
  };
}

function failure(res: express.Response, status: number, body: ApiError): void {
  res.status(status).json(body);
}

/** A registry's refusal with its own status (409 conflict, 400 invalid node, 503 Redis away); anything else is the host's. */
function answerError(error: unknown, res: express.Response, next: express.NextFunction): void {
  if (error instanceof WebhookError) failure(res, error.status, error.toJSON());
  else next(error);
}

function objectBody(req: express.Request): Record<string, unknown> {
  return typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? req.body as Record<string, unknown> : {};
}

export function workflowRoutes(registry: WebhookRegistry, store: EditorStore, listens: EditorListens, options: WorkflowRoutesOptions): express.Router {
  const router = express.Router();
  const json = express.json({ limit: '256kb' });
  const testPrefix = options.testPrefix ?? 'webhook-test';
  const maxListenMs = options.maxListenMs ?? 120_000;

  /** Full URLs from the address the page was opened with, so a copied address works from the same machine. */
  function addressesOf(req: express.Request, workflow: WorkflowWebhooks, nodeName: string): Addresses {
    const base = `${req.protocol}://${req.get('host') ?? '127.0.0.1'}${options.webhookMount}`;
    try {
      const byPath = new Map<string, string[]>();
      for (const webhook of resolveWorkflowWebhooks(workflow).filter((one) => one.nodeName === nodeName)) {
        byPath.set(webhook.path, [...(byPath.get(webhook.path) ?? []), webhook.method]);
      }
      const list = (prefix: string): Address[] => [...byPath].map(([path, methods]) => ({ methods, url: `${base}/${prefix}/${path}` }));
      return { production: list('webhook'), test: list(testPrefix) };
    } catch (error) {
      if (!(error instanceof WebhookError)) throw error;
      return { production: [], test: [], issue: error.message };
    }
  }

  async function summaries(req: express.Request): Promise<WorkflowSummary[]> {
    const active = new Set((await registry.list()).map((webhook) => webhook.workflowId));
    const all: Found[] = [
      ...[...store.workflows.values()].map((workflow) => ({ workflow, kind: 'workflow' as const, map: store.workflows })),
      ...[...store.drafts.values()].map((workflow) => ({ workflow, kind: 'draft' as const, map: store.drafts })),
    ];
    return all.map(({ workflow, kind }) => ({
      workflowId: workflow.workflowId,
      workflowName: workflow.workflowName ?? workflow.workflowId,
      kind,
      active: active.has(workflow.workflowId),
      nodes: workflow.nodes.map((node) => ({
        name: node.name,
        parameters: Object.fromEntries(Object.entries(node.parameters)),
        addresses: addressesOf(req, workflow, node.name),
      })),
    }));
  }

  router.get('/workflows', async (req, res, next) => {
    try {
      const workflows = await summaries(req);
      const listing: WorkflowListing = { workflows, startWith: options.startWith ?? workflows[0]?.workflowId };
      res.json(listing);
    } catch (error) {
      answerError(error, res, next);
    }
  });

  router.get('/node-types/webhook', (_req, res) => {
    res.json({ ...WEBHOOK_NODE_DESCRIPTION, hints: WEBHOOK_NODE_HINTS });
  });

  router.post('/workflows/:workflowId/nodes/:nodeName/addresses', json, (req, res) => {
    const found = find(store, req.params.workflowId);
    if (found === undefined) return failure(res, 404, { message: `No workflow ${req.params.workflowId}` });
    const parameters = objectBody(req);
    res.json(addressesOf(req, withParameters(found.workflow, { [req.params.nodeName]: parameters }), req.params.nodeName));
  });

  router.put('/workflows/:workflowId/nodes/:nodeName', json, async (req, res, next) => {
    try {
      const { workflowId, nodeName } = req.params;
      const found = find(store, workflowId);
      if (found?.workflow.nodes.some((node) => node.name === nodeName) !== true) {
        return failure(res, 404, { message: `No Webhook node "${nodeName}" in workflow ${workflowId}` });
      }
      const parameters = objectBody(req);
      const issues = validateParameters(WEBHOOK_NODE_DESCRIPTION.properties, parameters);
      if (issues.length > 0) {
        return failure(res, 422, { message: `Not saved: ${issues.length} parameter${issues.length === 1 ? ' is' : 's are'} not valid.`, issues });
      }
      const updated = withParameters(found.workflow, { [nodeName]: parameters });
      resolveWorkflowWebhooks(updated);
      const active = (await registry.list()).some((webhook) => webhook.workflowId === workflowId);
      // All or nothing: a refused activation (a conflict) keeps the saved workflow and the served addresses as they were.
      if (active) await registry.activate(updated);
      found.map.set(workflowId, updated);
      const summary = (await summaries(req)).find((one) => one.workflowId === workflowId);
      res.json({ workflow: summary, reactivated: active });
    } catch (error) {
      answerError(error, res, next);
    }
  });

  router.get('/workflows/:workflowId/test-events', (req, res) => {
    if (find(store, req.params.workflowId) === undefined) return failure(res, 404, { message: `No workflow ${req.params.workflowId}` });
    listens.subscribe(req.params.workflowId, res);
  });

  router.post('/workflows/:workflowId/test-listens', json, async (req, res, next) => {
    try {
      const found = find(store, req.params.workflowId);
      if (found === undefined) return failure(res, 404, { message: `No workflow ${req.params.workflowId}` });
      const { nodes, timeoutMs } = objectBody(req);
      // The tab listens with the parameters it shows, saved or not, as an editor runs what the user sees.
      const unsaved = typeof nodes === 'object' && nodes !== null ? nodes as Record<string, Record<string, unknown>> : {};
      const window = typeof timeoutMs === 'number' && timeoutMs >= 1000 ? Math.min(timeoutMs, maxListenMs) : maxListenMs;
      res.status(201).json(await listens.start(withParameters(found.workflow, unsaved), window));
    } catch (error) {
      answerError(error, res, next);
    }
  });

  router.delete('/workflows/:workflowId/test-listens/current', async (req, res, next) => {
    try {
      res.json({ cancelled: await listens.cancel(req.params.workflowId) });
    } catch (error) {
      answerError(error, res, next);
    }
  });

  return router;
}
