/**
 * The console's routes of addresses, workflows, test listens and recent calls: each reads what the console holds
 * (registry, listens, call log) and answers JSON; listening and stopping are the POSTs, behind the CSRF check.
 */
import type { IncomingMessage } from 'node:http';
import { TLSSocket } from 'node:tls';
import { create as createDisposition } from 'content-disposition';
import { WebhookError } from '../../core/errors.js';
import { resolveWorkflowWebhooks } from '../../webhooks/registry/resolve-workflow.js';
import type { WorkflowWebhooks } from '../../core/types.js';
import type { ConsoleListens } from '../listen/listens.js';
import type { ResolvedConsoleOptions } from '../options.js';
import type { CallListing, ConsoleOverview, WorkflowDto, WorkflowListing } from '../protocol.js';
import { addHeader } from '../../webhooks/response/host-headers.js';
import { issueCsrfToken } from './access.js';
import { badRequest, guardHeaders, notFound, sendJson } from './answer.js';
import { objectOf, readJsonBody } from './json-body.js';
import type { Route } from './router.js';
import { listWebhooks } from './webhook-rows.js';

/** Where the middleware is, as the console's user reaches it: a path option is completed with the console's own origin. */
export function webhookBaseOf(req: IncomingMessage, webhookUrl: string): string {
  // A path ('' when the middleware is mounted at the root) is completed; a full URL is as the host wrote it.
  if (/^https?:\/\//.test(webhookUrl)) return webhookUrl;
  const proto = req.socket instanceof TLSSocket ? 'https' : 'http';
  return `${proto}://${req.headers.host ?? 'localhost'}${webhookUrl}`;
}

function testUrlsOf(workflow: WorkflowWebhooks, nodeName: string, base: string, testPrefix: string): WorkflowDto['nodes'][number]['testUrls'] {
  const byPath = new Map<string, string[]>();
  try {
    for (const webhook of resolveWorkflowWebhooks(workflow, 'test').filter((one) => one.nodeName === nodeName)) {
      byPath.set(webhook.path, [...(byPath.get(webhook.path) ?? []), webhook.method]);
    }
  } catch (error) {
    // A node whose parameters do not resolve has no address; listening says why.
    if (!(error instanceof WebhookError)) throw error;
  }
  return [...byPath].map(([path, methods]) => ({ methods, url: `${base}/${testPrefix}/${path}` }));
}

export interface ApiParts {
  options: ResolvedConsoleOptions;
  listens: ConsoleListens;
}

async function workflowsOf(options: ResolvedConsoleOptions): Promise<WorkflowWebhooks[]> {
  if (options.workflows === undefined) {
    throw notFound('This console was given no workflows, so it cannot listen for test events.',
      'Pass createWebhookConsole({ workflows }) with the workflows a user may test.');
  }
  return options.workflows();
}

function windowOf(body: Record<string, unknown>, most: number): number {
  const { timeoutMs } = body;
  if (timeoutMs === undefined) return most;
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1000) {
    throw badRequest('timeoutMs must be a whole number of milliseconds, 1000 or more.');
  }
  return Math.min(timeoutMs, most);
}

export function apiRoutes({ options, listens }: ApiParts): Route[] {
  const settings = options.middleware.settings;
  return [
    {
      method: 'GET', path: '/api/overview', handle: ({ req, res, mountPath }) => {
        const overview: ConsoleOverview = {
          title: options.title,
          csrfToken: issueCsrfToken(req, res, options.csrfSecret, mountPath),
          webhookUrl: webhookBaseOf(req, options.webhookUrl),
          features: {
            listen: options.workflows !== undefined, queue: options.queue !== undefined, preview: options.preview, history: options.history !== undefined,
          },
          recentCallsKept: options.callLog.capacity,
        };
        if (settings.openApiPath !== undefined) overview.openApiUrl = `${overview.webhookUrl}${settings.openApiPath}`;
        sendJson(res, 200, overview);
      },
    },
    {
      method: 'GET', path: '/api/webhooks', handle: async ({ req, res }) => {
        // The refusals are counted in what the call log holds; a log that cannot answer leaves them at none.
        const recent = await options.callLog.recent().catch(() => []);
        sendJson(res, 200, await listWebhooks(options.registry, settings, webhookBaseOf(req, options.webhookUrl), recent));
      },
    },
    {
      method: 'GET', path: '/api/workflows', handle: async ({ req, res }) => {
        const base = webhookBaseOf(req, options.webhookUrl);
        const active = new Set((await options.registry.list()).map((webhook) => webhook.workflowId));
        const listing: WorkflowListing = {
          workflows: (await workflowsOf(options)).map((workflow) => ({
            workflowId: workflow.workflowId,
            workflowName: workflow.workflowName ?? workflow.workflowId,
            active: active.has(workflow.workflowId),
            nodes: workflow.nodes.map((node) => ({
              name: node.name,
              parameters: { ...node.parameters },
              testUrls: testUrlsOf(workflow, node.name, base, settings.testPrefix),
            })),
          })),
        };
        sendJson(res, 200, listing);
      },
    },
    {
      method: 'POST', path: '/api/workflows/:workflowId/listen', handle: async ({ req, res, params }) => {
        const body = objectOf(await readJsonBody(req, 16 * 1024));
        const workflow = (await workflowsOf(options)).find((one) => one.workflowId === params.workflowId);
        if (workflow === undefined) throw notFound(`No workflow ${params.workflowId} can listen from this console.`);
        sendJson(res, 201, await listens.start(workflow, windowOf(body, options.maxListenMs), webhookBaseOf(req, options.webhookUrl)));
      },
    },
    {
      method: 'POST', path: '/api/workflows/:workflowId/listen/stop', handle: async ({ req, res, params }) => {
        await readJsonBody(req, 16 * 1024);
        sendJson(res, 200, { cancelled: await listens.stop(params.workflowId as string) });
      },
    },
    { method: 'GET', path: '/api/listens', handle: ({ res }) => { sendJson(res, 200, listens.snapshots()); } },
    {
      method: 'GET', path: '/api/listens/:listenId/binary/:item/:property', handle: ({ res, params }) => {
        const file = listens.file(params.listenId as string, `${params.item}/${params.property}`);
        if (file === undefined) throw notFound('No such captured file: it belongs to a listen that is over, or it was too large to keep.');
        guardHeaders(res);
        // Sent as bytes to save, never to show: a captured HTML file must not run as the console's page.
        addHeader(res, 'content-security-policy', 'sandbox');
        res.setHeader('content-type', 'application/octet-stream');
        res.setHeader('content-disposition', createDisposition(file.fileName));
        res.setHeader('content-length', file.data.length);
        res.end(file.data);
      },
    },
    {
      method: 'GET', path: '/api/calls', handle: async ({ res, query }) => {
        const limit = Number(query.get('limit') ?? options.callLog.capacity);
        if (!Number.isInteger(limit) || limit < 1) throw badRequest('limit must be a whole number, 1 or more.');
        const listing: CallListing = { calls: await options.callLog.recent(Math.min(limit, options.callLog.capacity)) };
        sendJson(res, 200, listing);
      },
    },
  ];
}
