/**
 * Reads a history filter as the console's API takes it: from the query of GET /api/history (text), or from the JSON of
 * a bulk replay (typed). Each field is checked by one rule for both; anything else is a 400 that names the field.
 */
import type { HistoryFilter, StatusClass } from '../../core/history.js';
import { HISTORY_ID } from '../../webhooks/history/ids.js';
import { equalsOf, HISTORY_FILTER_FIELDS, HISTORY_QUERY_FIELDS, HISTORY_TEXT_FIELDS, HISTORY_TIME_FIELDS, type HistoryTextField } from '../protocol-history.js';
import { badRequest } from './answer.js';

const TEXT_FIELDS = new Set<string>(HISTORY_TEXT_FIELDS);
const QUERY_FIELDS = new Set<string>(HISTORY_QUERY_FIELDS);
const MOST_PER_PAGE = 500;

export interface HistoryQuery {
  filter: HistoryFilter;
  page: { cursor?: string; limit?: number };
}

function statusClassOf(value: unknown): StatusClass {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 5) {
    throw badRequest('statusClass must be 0 (calls no answer went out for) or 1 to 5 (1xx to 5xx).');
  }
  return value as StatusClass;
}

function timeOf(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw badRequest(`${name} must be a time: epoch milliseconds, or (in a query) an ISO 8601 date-time.`);
  }
  return value;
}

function pointerOf(value: unknown): string {
  if (typeof value !== 'string' || !(value === '' || value.startsWith('/'))) {
    throw badRequest('pointer must be a JSON pointer into the body (RFC 6901), such as /order/status.');
  }
  return value;
}

function textOf(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw badRequest(`${name} must be a non-empty string.`);
  return value;
}

/** A query value as a time: a whole number is epoch milliseconds, anything else must be an ISO 8601 date-time. */
function queryTime(name: string, text: string): number {
  if (/^\d+$/.test(text)) return timeOf(name, Number(text));
  return timeOf(name, /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN);
}

/**
 * GET /api/history's query. An empty parameter counts as not given (a form's blank field); a parameter given twice,
 * or one the route does not take, is refused rather than guessed at.
 */
export function historyQueryOf(query: URLSearchParams): HistoryQuery {
  const given = new Map<string, string>();
  for (const name of new Set(query.keys())) {
    if (!QUERY_FIELDS.has(name)) throw badRequest(`${name} is not a filter of the history; it takes ${HISTORY_QUERY_FIELDS.join(', ')}.`);
    const values = query.getAll(name);
    if (values.length > 1) throw badRequest(`${name} is given ${values.length} times; give it once.`);
    if (values[0] !== '') given.set(name, values[0] as string);
  }
  const filter: HistoryFilter = {};
  for (const name of HISTORY_TEXT_FIELDS) {
    const value = given.get(name);
    if (value !== undefined) filter[name] = name === 'method' ? value.toUpperCase() : value;
  }
  const statusClass = given.get('statusClass');
  if (statusClass !== undefined) filter.statusClass = statusClassOf(/^\d$/.test(statusClass) ? Number(statusClass) : Number.NaN);
  for (const name of HISTORY_TIME_FIELDS) {
    const value = given.get(name);
    if (value !== undefined) filter[name] = queryTime(name, value);
  }
  const pointer = given.get('pointer');
  const equals = given.get('equals');
  if ((pointer === undefined) !== (equals === undefined)) {
    throw badRequest('pointer and equals go together: the body\'s value at pointer must equal equals (a JSON scalar, or text).');
  }
  if (pointer !== undefined && equals !== undefined) filter.body = { pointer: pointerOf(pointer), equals: equalsOf(equals) };
  const page: HistoryQuery['page'] = {};
  const cursor = given.get('cursor');
  if (cursor !== undefined) {
    if (!HISTORY_ID.test(cursor)) throw badRequest('cursor must be the next of an earlier page of the history.');
    page.cursor = cursor;
  }
  const limit = given.get('limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > MOST_PER_PAGE) throw badRequest(`limit must be a whole number from 1 to ${MOST_PER_PAGE}.`);
    page.limit = Number(limit);
  }
  return { filter, page };
}

/** A bulk replay's `filter`, as JSON: the same fields, typed (`statusClass` and times are numbers, `body` an object). */
export function historyFilterOf(value: unknown): HistoryFilter {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('filter must be an object of the history\'s filter fields ({} matches every kept call).');
  const filter: HistoryFilter = {};
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
    if (field === undefined) continue;
    if (name === 'body') filter.body = bodyFilterOf(field);
    else if (name === 'statusClass') filter.statusClass = statusClassOf(field);
    else if (name === 'from' || name === 'to') filter[name] = timeOf(`filter.${name}`, field);
    else if (TEXT_FIELDS.has(name)) filter[name as HistoryTextField] = textOf(`filter.${name}`, field);
    else throw badRequest(`filter.${name} is not a filter of the history; it takes ${HISTORY_FILTER_FIELDS.join(', ')}.`);
  }
  if (filter.method !== undefined) filter.method = filter.method.toUpperCase();
  return filter;
}

function bodyFilterOf(value: unknown): NonNullable<HistoryFilter['body']> {
  const { pointer, equals } = typeof value === 'object' && value !== null ? value as Record<string, unknown> : {};
  if (!(equals === null || typeof equals === 'string' || typeof equals === 'number' || typeof equals === 'boolean')) {
    throw badRequest('filter.body must be { pointer, equals }, equals a string, number, boolean or null.');
  }
  return { pointer: pointerOf(pointer), equals };
}
