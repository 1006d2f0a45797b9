/**
 * Converting and checking one value against a FieldType (the resource mapper's eight, and the platform's others). Used by the
 * resource mapper and by `validateType`. Messages follow the platform's texts where they are clear.
 */
import type { FieldType, OptionEntry } from '../types.js';

export type Converted = { ok: true; value: unknown } | { ok: false; message: string };

function shown(value: unknown): string {
  if (value === null) return "'null'";
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return `'${String(value as string)}'`;
}

const expects = (name: string, type: string, value: unknown): Converted =>
  ({ ok: false, message: `'${name}' expects a ${type} but we got ${shown(value)}` });

const TIME = /^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/** Converts `value` to `type` where the conversion is unambiguous; null and undefined stay as they are. */
export function convertFieldValue(name: string, value: unknown, type: FieldType | undefined, options?: readonly OptionEntry[]): Converted {
  if (value === null || value === undefined || type === undefined) return { ok: true, value };
  switch (type) {
    case 'number': {
      const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
      return Number.isFinite(number) ? { ok: true, value: number } : expects(name, 'number', value);
    }
    case 'boolean': {
      if (typeof value === 'boolean') return { ok: true, value };
      const text = String(value as string).trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(text)) return { ok: true, value: true };
      if (['false', '0', 'no', 'off'].includes(text)) return { ok: true, value: false };
      return expects(name, 'boolean', value);
    }
    case 'dateTime': {
      const date = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : undefined;
      if (date === undefined || Number.isNaN(date.getTime())) {
        return { ok: false, message: `'${name}' expects a dateTime but we got ${shown(value)}: use an ISO 8601 date such as 2026-11-22T10:00:00Z` };
      }
      return { ok: true, value: date.toISOString() };
    }
    case 'time':
      return typeof value === 'string' && TIME.test(value.trim()) ? { ok: true, value: value.trim() }
        : { ok: false, message: `'${name}' expects time (hh:mm(:ss)) but we got ${shown(value)}` };
    case 'array': {
      const array = Array.isArray(value) ? value : typeof value === 'string' ? parseJson(value) : undefined;
      return Array.isArray(array) ? { ok: true, value: array } : expects(name, 'array', value);
    }
    case 'object': {
      const object = typeof value === 'string' ? parseJson(value) : value;
      return typeof object === 'object' && object !== null && !Array.isArray(object) ? { ok: true, value: object } : expects(name, 'object', value);
    }
    case 'options': {
      const values = (options ?? []).map((option) => option.value);
      if (values.length === 0 || values.includes(value as string)) return { ok: true, value };
      return { ok: false, message: `'${name}' expects one of the following values: [${values.map(String).join(', ')}] but we got ${shown(value)}` };
    }
    case 'string-alphanumeric':
      return typeof value === 'string' && /^\w*$/.test(value) ? { ok: true, value }
        : { ok: false, message: 'Value is not a valid alphanumeric string, only letters, numbers and underscore allowed' };
    case 'url': {
      let url: URL | undefined;
      try { url = new URL(String(value as string)); } catch { url = undefined; }
      return url !== undefined && ['http:', 'https:', 'ftp:', 'file:'].includes(url.protocol) ? { ok: true, value: String(value as string) } : expects(name, 'url', value);
    }
    case 'jwt':
      return typeof value === 'string' && /^[\w-]+\.[\w-]+\.[\w-]*$/.test(value) ? { ok: true, value } : { ok: false, message: 'Value is not a valid JWT token' };
    case 'string':
      return typeof value === 'object' ? { ok: true, value: JSON.stringify(value) } : { ok: true, value: String(value as string) };
    default:
      return { ok: true, value };
  }
}
