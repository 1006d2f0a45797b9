/**
 * What the console's History section and its server say to each other: kept calls, their replay and bulk replays.
 * The history API's own types (lib/core/history.ts), so the page and the server read one shape, and the filter's
 * field names and how its `equals` text reads, so the page's form and the server's parser take the same fields the
 * same way. It imports only types: the page's bundle holds it.
 *
 * Routes (behind `authorize`; the POSTs behind the CSRF check; 404 CONSOLE_NOT_FOUND when the middleware keeps no history):
 *   GET  /api/history?workflowId&nodeName&method&statusClass&code&from&to&requestId&replayOf&pointer&equals&cursor&limit
 *                                          HistoryListing, newest first (a file's bytes are left out of its rows)
 *   GET  /api/history/:id                  HistoryEntryDto (404 HISTORY_NOT_FOUND)
 *   POST /api/history/:id/replay           body ReplayRequest → ReplayResultDto (409 HISTORY_REPLAYED_BEFORE without `again`)
 *   POST /api/history/replays              body BulkReplayRequest → 202 BulkReplayProgressDto
 *   GET  /api/history/replays              BulkReplayListing (this instance's, newest first)
 *   POST /api/history/replays/:id/stop     → BulkReplayProgressDto
 * and the event stream sends `{ type: 'replay', progress }` as each bulk replay goes on.
 */

import type { BulkReplayProgress, HistoryData, HistoryEntry, HistoryFile, HistoryFilter, ReplayResult } from '../core/history.js';

/** A file of a kept call: its name, type and size; its bytes (base64) only in a single call's answer, when history kept them. */
export type HistoryFileDto = HistoryFile;
/** The request and outcome of a kept call; credentials read `[redacted]`. */
export type HistoryDataDto = HistoryData;
/** One kept call. `id` sorts as calls arrived; `replayOf` links a replay to the call it ran again. */
export type HistoryEntryDto = HistoryEntry;

export interface HistoryListing {
  entries: HistoryEntryDto[];
  /** Pass as `cursor` for the next (older) page; absent when there is none. */
  next?: string;
}

/** What finds calls (every field given must match); `statusClass` 0 is calls no answer went out for. */
export type HistoryFilterDto = HistoryFilter;

/** The filter's fields whose value is text (`method` is matched upper-cased). */
export const HISTORY_TEXT_FIELDS = ['workflowId', 'nodeName', 'method', 'code', 'requestId', 'replayOf'] as const satisfies readonly (keyof HistoryFilterDto)[];
export type HistoryTextField = typeof HISTORY_TEXT_FIELDS[number];

/** The filter's times: epoch milliseconds (a query may also give an ISO 8601 date-time); `to` is exclusive. */
export const HISTORY_TIME_FIELDS = ['from', 'to'] as const;

/** Every field of the filter, as a bulk replay's JSON takes them. */
export const HISTORY_FILTER_FIELDS = [...HISTORY_TEXT_FIELDS, 'statusClass', ...HISTORY_TIME_FIELDS, 'body'] as const satisfies readonly (keyof HistoryFilterDto)[];

/** GET /api/history's query: the filter's fields with `body` as `pointer` and `equals` (JSON), and the page's place. */
export const HISTORY_QUERY_FIELDS = [...HISTORY_TEXT_FIELDS, 'statusClass', ...HISTORY_TIME_FIELDS, 'pointer', 'equals', 'cursor', 'limit'] as const;

/**
 * What `equals` written as text means (the page's field, the query's parameter): the JSON scalar it spells (`42`,
 * `true`, `null`, `"42"`), else the text itself. One rule, so that the server reads the value the user typed.
 */
export function equalsOf(text: string): string | number | boolean | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed === 'string' || typeof parsed === 'number' || typeof parsed === 'boolean') return parsed;
  } catch {
    // Not JSON: the text is the value.
  }
  return text;
}

/** POST /api/history/:id/replay: `again` replays a call that was replayed before (a second, explicit request). */
export interface ReplayRequest {
  again?: boolean;
}

export type ReplayResultDto = ReplayResult;

/** POST /api/history/replays: every call the filter matches now, `perSecond` started a second (default 5, most 1 000). */
export interface BulkReplayRequest {
  filter: HistoryFilterDto;
  perSecond?: number;
  again?: boolean;
}

export type BulkReplayProgressDto = BulkReplayProgress;

export interface BulkReplayListing {
  replays: BulkReplayProgressDto[];
}
