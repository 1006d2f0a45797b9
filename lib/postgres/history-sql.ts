/**
 * Call history's table and statements on PostgreSQL: version 4 of the schema, a batch of records as column arrays
 * for one multi-row INSERT, and a history filter as a WHERE clause. The clause may find more than the filter does
 * (never fewer): the store checks every row it reads with the one reading of the filter (`recordTest`).
 */
import type { HistoryFilter, HistoryRecord, HistoryStoreQuery } from '../core/history.js';
import { pointerTokens } from '../webhooks/history/matches.js';
import { bodyText, recordText } from '../webhooks/history/record-text.js';

/**
 * Version 4: call history (`PostgresHistoryStore`). `record` is the whole record as JSON text, which holds any string
 * (jsonb cannot hold U+0000); the other columns are what finding filters on, and `replays` is the count that
 * `claimReplay` keeps (it wins over the one in `record`). `body` is the clear body kept whole, as jsonb, for the body
 * filter; `body_opaque` marks a body SQL cannot judge (sealed, or holding what jsonb cannot), a candidate for it.
 * Ids compare as bytes (COLLATE "C"), as JavaScript compares them: newest first is `id DESC` whatever the locale.
 */
export const V4 = `
CREATE TABLE {S}.history_calls (
  id text COLLATE "C" PRIMARY KEY, at bigint NOT NULL, workflow_id text NOT NULL, node_name text NOT NULL,
  method text NOT NULL, status integer, code text, request_id text NOT NULL, replay_of text,
  replays integer NOT NULL DEFAULT 0, body jsonb, body_opaque boolean NOT NULL, record text NOT NULL);
CREATE INDEX history_calls_by_at ON {S}.history_calls (at);
CREATE INDEX history_calls_by_workflow ON {S}.history_calls (workflow_id, id);
CREATE INDEX history_calls_by_status ON {S}.history_calls (status, id);
CREATE INDEX history_calls_by_request ON {S}.history_calls (request_id);
CREATE INDEX history_calls_by_replay_of ON {S}.history_calls (replay_of) WHERE replay_of IS NOT NULL;
`;

/**
 * PostgreSQL text cannot hold U+0000: a text column gets it escaped, and so does every value compared with one. The
 * escape is one to one (a backslash is doubled), so equal stays equal.
 */
export function columnText(value: string): string;
export function columnText(value: string | undefined): string | null;
export function columnText(value: string | undefined): string | null {
  if (value === undefined) return null;
  return /[\\\0]/.test(value) ? value.replace(/[\\\0]/g, (found) => (found === '\0' ? '\\0' : '\\\\')) : value;
}

/** The string a text column's value escapes (`columnText`'s inverse): the cursor given back is the record's id. */
export function fromColumnText(text: string): string {
  return text.includes('\\') ? text.replace(/\\([0\\])/g, (_, found: string) => (found === '0' ? '\0' : '\\')) : text;
}

/** A `\u` escape of JSON text that jsonb refuses: U+0000, or half of a surrogate pair (an even run of `\` before it). */
const JSONB_REFUSES = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/i;

/**
 * The statement that adds a batch: one row per record, whatever the batch's size, from one `json` parameter (an
 * array of rows). Its text is made by JSON.stringify in native code, where column arrays had node-postgres quote
 * every element in JavaScript (most of a write's cost, with the record's JSON text full of quotes to escape).
 */
export function insertSql(table: string): string {
  return `INSERT INTO ${table}
    (id, at, workflow_id, node_name, method, status, code, request_id, replay_of, replays, body, body_opaque, record)
    SELECT * FROM json_to_recordset($1::json) AS batch(id text, at bigint, workflow_id text, node_name text,
      method text, status integer, code text, request_id text, replay_of text, replays integer, body jsonb,
      body_opaque boolean, record text)
    ON CONFLICT (id) DO NOTHING`;
}

/**
 * The INSERT's one parameter: the batch's rows as JSON text, a row per record. The record's text and its body's
 * are the ones made when the call was written (record-text.ts); the body goes into its row as that text.
 */
export function insertValues(records: readonly HistoryRecord[]): [string] {
  const rows = records.map((record) => {
    const text = recordText(record);
    const [body, opaque] = bodyColumns(record);
    const row = JSON.stringify({
      id: rowText(record.id), at: Math.floor(record.at), workflow_id: rowText(record.workflowId), node_name: rowText(record.nodeName),
      method: rowText(record.method), status: record.status === undefined ? null : Math.floor(record.status), code: rowText(record.code),
      request_id: rowText(record.requestId), replay_of: rowText(record.replayOf), replays: record.replays, body_opaque: opaque, record: text,
    });
    return body === undefined ? row : `${row.slice(0, -1)},"body":${body}}`;
  });
  return [`[${rows.join(',')}]`];
}

/**
 * A text column's value in the batch's JSON: as columnText escapes it, and with half of a surrogate pair as UTF-8
 * writes it (U+FFFD), which is what a text parameter sent; PostgreSQL's json refuses the `\u` escape JSON gives it.
 */
function rowText(value: string | undefined): string | null {
  const text = columnText(value);
  return text !== null && /[\uD800-\uDFFF]/.test(text) ? Buffer.from(text).toString('utf8') : text;
}

/**
 * The `body` (JSON text; undefined: NULL) and `body_opaque` of a record: a clear body kept whole, when jsonb can
 * hold it; a sealed body, or one jsonb cannot hold, is opaque (a candidate for every body filter); any other body
 * matches none.
 */
function bodyColumns(record: HistoryRecord): [string | undefined, boolean] {
  if (!('clear' in record.data)) return [undefined, true];
  const text = bodyText(record);
  if (text === undefined) return [undefined, false];
  // A JSON null in the batch is SQL's NULL in the column: a body that is null is left to the check of each row read.
  if (text === 'null') return [undefined, true];
  return text.includes('\\u') && JSONB_REFUSES.test(text) ? [undefined, true] : [text, false];
}

/** A WHERE clause and its values; `$1` is taken by the retention's cutoff (older calls are never found). */
export interface Where {
  clause: string;
  values: unknown[];
}

/** The clause of a query: every filter given, the cursor, and the retention's cutoff. */
export function whereOf(query: HistoryStoreQuery, cutoff: number): Where {
  const values: unknown[] = [cutoff];
  const parts = ['at >= $1'];
  const add = (sql: (place: string) => string, value: unknown): void => {
    values.push(value);
    parts.push(sql(`$${values.length}`));
  };
  if (query.before !== undefined) add((place) => `id < ${place}`, columnText(query.before));
  if (query.workflowId !== undefined) add((place) => `workflow_id = ${place}`, columnText(query.workflowId));
  if (query.nodeName !== undefined) add((place) => `node_name = ${place}`, columnText(query.nodeName));
  if (query.method !== undefined) add((place) => `method = ${place}`, columnText(query.method.toUpperCase()));
  if (query.statusClass === 0) parts.push('(status IS NULL OR status BETWEEN 0 AND 99)');
  else if (query.statusClass !== undefined) add((place) => `status BETWEEN ${place} * 100 AND ${place} * 100 + 99`, query.statusClass);
  if (query.code !== undefined) add((place) => `code = ${place}`, columnText(query.code));
  // `at` holds whole milliseconds: these bounds hold every call within the filter's (and a few the check drops).
  if (query.from !== undefined) add((place) => `at >= ${place}`, Math.floor(query.from));
  if (query.to !== undefined) add((place) => `at < ${place}`, Math.ceil(query.to));
  if (query.requestId !== undefined) add((place) => `request_id = ${place}`, columnText(query.requestId));
  if (query.replayOf !== undefined) add((place) => `replay_of = ${place}`, columnText(query.replayOf));
  if (query.body !== undefined) {
    const compared = bodyComparison(query.body);
    if (compared === undefined) parts.push('body_opaque');
    else {
      values.push(compared.path, compared.value);
      parts.push(`(body #> $${values.length - 1}::text[] = $${values.length}::jsonb OR body_opaque)`);
    }
  }
  return { clause: parts.join(' AND '), values };
}

/**
 * The body filter as a jsonb path and value; undefined when no body jsonb holds can match it (a pointer that is
 * none, a value jsonb cannot hold): then only the bodies SQL cannot read are candidates.
 */
function bodyComparison(filter: NonNullable<HistoryFilter['body']>): { path: string[]; value: string } | undefined {
  const tokens = pointerTokens(filter.pointer);
  if (tokens === undefined || tokens.some((token) => token.includes('\0'))) return undefined;
  if (typeof filter.equals === 'number' && !Number.isFinite(filter.equals)) return undefined;
  const value = JSON.stringify(filter.equals);
  return value === undefined || JSONB_REFUSES.test(value) ? undefined : { path: tokens, value };
}
