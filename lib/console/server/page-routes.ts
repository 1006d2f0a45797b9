/**
 * The routes of the page itself, its bundled files, its event stream and the node parameter preview.
 */
import type { ConsoleListens } from '../listen/listens.js';
import type { ResolvedConsoleOptions } from '../options.js';
import { lintDescription, listSearch, previewExamples, resourceMapping, webhookNodeDescription } from '../preview/routes.js';
import { notFound, sendJson } from './answer.js';
import type { EventStreams } from './event-stream.js';
import { readJsonBody } from './json-body.js';
import { sendAsset, sendPage } from './page.js';
import type { Route } from './router.js';

const DESCRIPTION_BYTES = 1024 * 1024;

function previewRoutes(enabled: boolean): Route[] {
  const check = (): void => {
    if (!enabled) throw notFound('The node parameter preview is turned off in this console (option preview: false).');
  };
  return [
    { method: 'GET', path: '/api/preview/examples', handle: ({ res }) => { check(); sendJson(res, 200, previewExamples()); } },
    { method: 'GET', path: '/api/preview/webhook-node', handle: ({ res }) => { check(); sendJson(res, 200, webhookNodeDescription()); } },
    {
      method: 'POST', path: '/api/preview/lint', handle: async ({ req, res }) => {
        check();
        sendJson(res, 200, lintDescription(await readJsonBody(req, DESCRIPTION_BYTES)));
      },
    },
    {
      method: 'POST', path: '/api/preview/methods/listSearch/:method', handle: async ({ req, res, params }) => {
        check();
        sendJson(res, 200, listSearch(params.method as string, await readJsonBody(req, 64 * 1024)));
      },
    },
    {
      method: 'POST', path: '/api/preview/methods/resourceMapping/:method', handle: async ({ req, res, params }) => {
        check();
        sendJson(res, 200, resourceMapping(params.method as string, await readJsonBody(req, 64 * 1024)));
      },
    },
  ];
}

export function pageRoutes(options: ResolvedConsoleOptions, listens: ConsoleListens, streams: EventStreams): Route[] {
  return [
    { method: 'GET', path: '/', handle: ({ res, mountPath }) => sendPage(res, options.title, mountPath) },
    { method: 'GET', path: '/assets/:file', handle: ({ req, res, params }) => sendAsset(req, res, params.file as string) },
    {
      method: 'GET', path: '/api/events', handle: ({ req, res }) => {
        if (req.method === 'HEAD') {
          streams.head(res);
          return;
        }
        // A page that opens now sees the listens already under way without asking.
        streams.open(res, listens.snapshots().map((snapshot) => ({ type: 'listen', ...snapshot })));
      },
    },
    ...previewRoutes(options.preview),
  ];
}
