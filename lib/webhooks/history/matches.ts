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

/**
 * The body filter as one test of a call's data, its pointer split once for every call a find reads; a body not kept
 * whole matches nothing.
 */
export function bodyTest(filter: NonNullable<HistoryFilter['body']>): (data: HistoryData) => boolean {
  const tokens = pointerTokens(filter.pointer);
  return (data) => tokens !== undefined && data.bodyKept === 'whole' && valueAt(data.body, tokens) === filter.equals;
}

/** The status class of a status (`0`: no answer went out). */
export function statusClassOf(status: number | undefined): number {
  return status === undefined ? 0 : Math.floor(status / 100);
}

/**
 * The filter as one test of a record, made once a find: whether it matches every field given. The body filter is
 * judged only where the body can be read (clear data); `sealedBody` says what a sealed one counts as (a store: a
 * candidate; the API: opened first).
 */
export function recordTest(filter: HistoryFilter, sealedBody = true): (record: HistoryRecord) => boolean {
  const body = filter.body === undefined ? undefined : bodyTest(filter.body);
  const method = filter.method?.toUpperCase();
  return (record) => {
    if (filter.workflowId !== undefined && record.workflowId !== filter.workflowId) return false;
    if (filter.nodeName !== undefined && record.nodeName !== filter.nodeName) return false;
    if (method !== undefined && record.method !== method) return false;
    if (filter.statusClass !== undefined && statusClassOf(record.status) !== filter.statusClass) return false;
    if (filter.code !== undefined && record.code !== filter.code) return false;
    if (filter.from !== undefined && record.at < filter.from) return false;
    if (filter.to !== undefined && record.at >= filter.to) return false;
    if (filter.requestId !== undefined && record.requestId !== filter.requestId) return false;
    if (filter.replayOf !== undefined && record.replayOf !== filter.replayOf) return false;
    if (body !== undefined) return 'clear' in record.data ? body(record.data.clear) : sealedBody;
    return true;
  };
}
