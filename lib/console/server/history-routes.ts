/**
 * The History section's routes: find kept calls, open one, replay one, and replay every call a filter matches, with
 * that bulk replay's progress and its stop. They hand the middleware's `history` API what was asked and answer what
 * it gives; its refusals (HISTORY_NOT_FOUND, HISTORY_REPLAYED_BEFORE, PAYLOAD_INVALID, …) pass through as they are.
 */
import type { IncomingMessage } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import type { HistoryEntry, HistoryFile, WebhookHistory } from '../../core/history.js';
import type { ResolvedConsoleOptions } from '../options.js';
import type { BulkReplayListing, BulkReplayProgressDto, HistoryEntryDto, HistoryFileDto, HistoryListing, ReplayResultDto } from '../protocol.js';
import { badRequest, notFound, sendJson } from './answer.js';
import { historyFilterOf, historyQueryOf } from './history-filter.js';
import { objectOf, readJsonBody } from './json-body.js';
import type { Route } from './router.js';

const BODY_LIMIT = 16 * 1024;
const MOST_PER_SECOND = 1000;

function historyOf(history: WebhookHistory | undefined): WebhookHistory {
  if (history === undefined) {
    throw notFound('This middleware keeps no history of calls, so there is nothing to find or replay.',
      'Create the middleware with createWebhookMiddleware(registry, executor, { history: { store } }) to keep calls.');
  }
  return history;
}

/** A list row names each file (name, type, size); its bytes come only with the call opened alone. */
function fileRow(file: HistoryFile): HistoryFileDto {
  const row: HistoryFileDto = { property: file.property, mimeType: file.mimeType, size: file.size };
  if (file.fileName !== undefined) row.fileName = file.fileName;
  return row;
}

function listRow(entry: HistoryEntry): HistoryEntryDto {
  return { ...entry, data: { ...entry.data, files: entry.data.files.map(fileRow) } };
}

/** Who replays: the host's `userOf`, or `console` when it gives nobody. */
function replayerOf(req: IncomingMessage, userOf: ResolvedConsoleOptions['userOf']): string {
  const user: unknown = userOf?.(req);
  if (user === undefined || user === null || user === '') return 'console';
  if (typeof user !== 'string') throw new TypeError(`workflow-webhooks/console: userOf must return the user's name as a string, or undefined (it gave a ${typeof user}).`);
  return user;
}

function againOf(body: Record<string, unknown>): boolean {
  if (body.again !== undefined && typeof body.again !== 'boolean') throw badRequest('again must be true or false.');
  return body.again === true;
}

function onlyFields(body: Record<string, unknown>, fields: readonly string[]): void {
  for (const name of Object.keys(body)) {
    if (!fields.includes(name)) throw badRequest(`${name} is not a field of this request; it takes ${fields.join(', ')}.`);
  }
}

function perSecondOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MOST_PER_SECOND) {
    throw badRequest(`perSecond must be a number of replays a second above 0 and at most ${MOST_PER_SECOND}.`);
  }
  return value;
}

export function historyRoutes(options: ResolvedConsoleOptions): Route[] {
  const given = options.history;
  return [
    {
      method: 'GET', path: '/api/history', handle: async ({ res, query }) => {
        const history = historyOf(given);
        const { filter, page } = historyQueryOf(query);
        const found = await history.find(filter, page);
        const listing: HistoryListing = { entries: found.entries.map(listRow) };
        if (found.next !== undefined) listing.next = found.next;
        sendJson(res, 200, listing);
      },
    },
    // Before /api/history/:id, which would take `replays` for an id.
    {
      method: 'GET', path: '/api/history/replays', handle: ({ res }) => {
        const listing: BulkReplayListing = { replays: historyOf(given).bulkReplays() };
        sendJson(res, 200, listing);
      },
    },
    {
      method: 'POST', path: '/api/history/replays', handle: async ({ req, res }) => {
        const history = historyOf(given);
        const body = objectOf(await readJsonBody(req, BODY_LIMIT));
        onlyFields(body, ['filter', 'perSecond', 'again']);
        const filter = historyFilterOf(body.filter);
        const perSecond = perSecondOf(body.perSecond);
        const started = history.replayAll(filter, {
          by: replayerOf(req, options.userOf), again: againOf(body), ...(perSecond === undefined ? {} : { perSecond }),
        });
        const progress: BulkReplayProgressDto = started.progress();
        sendJson(res, 202, progress);
      },
    },
    {
      method: 'POST', path: '/api/history/replays/:id/stop', handle: async ({ req, res, params }) => {
        const history = historyOf(given);
        await readJsonBody(req, BODY_LIMIT);
        const replay = history.bulkReplay(params.id as string);
        if (replay === undefined) throw notFound(`No bulk replay ${params.id} on this instance: it never started here, or it is forgotten.`);
        replay.stop();
        const progress: BulkReplayProgressDto = replay.progress();
        sendJson(res, 200, progress);
      },
    },
    {
      method: 'GET', path: '/api/history/:id', handle: async ({ res, params }) => {
        const entry = await historyOf(given).get(params.id as string);
        if (entry === undefined) throw new WebhookError('HISTORY_NOT_FOUND', `No kept call ${params.id}: it was never kept, or it is past the retention.`);
        const dto: HistoryEntryDto = entry;
        sendJson(res, 200, dto);
      },
    },
    {
      method: 'POST', path: '/api/history/:id/replay', handle: async ({ req, res, params }) => {
        const history = historyOf(given);
        const body = objectOf(await readJsonBody(req, BODY_LIMIT));
        onlyFields(body, ['again']);
        const result: ReplayResultDto = await history.replay(params.id as string, { by: replayerOf(req, options.userOf), again: againOf(body) });
        // Written now, not with the next batch, so that the page's "Open the replay" finds the entry it names. The replay
        // ran whatever the store says now: a store away keeps the entry for its next batch, and the answer is the replay's.
        await history.flush().catch(() => undefined);
        sendJson(res, 200, result);
      },
    },
  ];
}
