/**
 * Whether a kept call matches a history filter: the one reading of every filter, shared by the stores that filter
 * what they read (memory, Redis) and by the history API, which checks a sealed call's body once it is opened.
 */
import type { HistoryData, HistoryFilter, HistoryRecord } from '../../core/history.js';

/** The tokens of a JSON pointer (RFC 6901: `/a/b~1c` is `a`, `b/c`); undefined for a string that is not one. */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer.slice(1).split('/').map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a pointer of a body, or undefined where there is none. */
export function valueAt(body: unknown, tokens: readonly string[]): unknown {
  let here = body;
  for (const token of tokens) {
    if (typeof here !== 'object' || here === null) return undefined;
    if (Array.isArray(here)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      here = here[Number(token)];
    } else {
      if (!Object.hasOwn(here, token)) return undefined;
      here = (here as Record<string, unknown>)[token];
    }
  }
  return here;
}

/** Whether the call's kept body holds the filter's value at its pointer; a body not kept whole matches nothing. */
export function bodyMatches(data: HistoryData, filter: NonNullable<HistoryFilter['body']>): boolean {
  if (data.bodyKept !== 'whole') return false;
  const tokens = tokensOf(filter.pointer);
  return tokens !== undefined && valueAt(data.body, tokens) === filter.equals;
}

/**
 * The last pointer read and its tokens: a find judges one pointer against every call it reads (up to a page's scan
 * budget), and a store called without the API's length check could be given a long one; it is split once a find.
 */
let lastPointer: { pointer: string; tokens: string[] | undefined } | undefined;

function tokensOf(pointer: string): readonly string[] | undefined {
  if (lastPointer?.pointer !== pointer) lastPointer = { pointer, tokens: pointerTokens(pointer) };
  return lastPointer.tokens;
}

/** The status class of a status (`0`: no answer went out). */
export function statusClassOf(status: number | undefined): number {
  return status === undefined ? 0 : Math.floor(status / 100);
}

/**
 * Whether a record matches every field of the filter given. The body filter is judged only where the body can be
 * read (clear data); `sealedBody` says what a sealed one counts as (a store: a candidate; the API: opened first).
 */
export function recordMatches(record: HistoryRecord, filter: HistoryFilter, sealedBody = true): boolean {
  if (filter.workflowId !== undefined && record.workflowId !== filter.workflowId) return false;
  if (filter.nodeName !== undefined && record.nodeName !== filter.nodeName) return false;
  if (filter.method !== undefined && record.method !== filter.method.toUpperCase()) return false;
  if (filter.statusClass !== undefined && statusClassOf(record.status) !== filter.statusClass) return false;
  if (filter.code !== undefined && record.code !== filter.code) return false;
  if (filter.from !== undefined && record.at < filter.from) return false;
  if (filter.to !== undefined && record.at >= filter.to) return false;
  if (filter.requestId !== undefined && record.requestId !== filter.requestId) return false;
  if (filter.replayOf !== undefined && record.replayOf !== filter.replayOf) return false;
  if (filter.body !== undefined) return 'clear' in record.data ? bodyMatches(record.data.clear, filter.body) : sealedBody;
  return true;
}
