/**
 * The captured test call as a curl command line that sends it again, made to be pasted into a shell: what the caller
 * sent is text there, never an instruction to the shell or to curl. The address is the middleware's own test address
 * as the console reaches it (never the Host header the caller sent), with the call's path parameters and query.
 * Form fields go as `--form-string` and bodies as `--data-raw`, which take a leading `@` or `<` as text (with `-F`
 * and `--data-binary` curl would read a file of the admin's by that name). Files are placeholders the user fills in,
 * `@<path to name>`, which names no file, so curl refuses to run until they are filled. Redacted values are
 * placeholders too (`<authorization>`). What a shell word or curl cannot carry as text (a field name with `=` or a
 * quote, a header with a line break, a NUL byte) is left out and said in a comment line above the command.
 */
import qs from 'qs';
import { REDACTED } from '../../webhooks/guards/secrets.js';

/** Headers a client adds itself, or that belong to the connection, not to the call. */
const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'accept-encoding', 'expect', 'te', 'upgrade']);

/** An HTTP header name (RFC 9110 token): anything else would not be a header curl sends as such. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Control characters a header value must not hold: a line break would start another header in curl's request. */
const HEADER_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** curl splits a form field at its first `=` and escapes `"` and line breaks in the name: such a name cannot be sent as written. */
const FORM_NAME_UNSENDABLE = /[="\u0000-\u001f\u007f]/;
/** MARK + name, put in place of a redacted query value and turned into a placeholder when the query is written. */
const MARK = '\u0000redacted:';

/** Single quotes: the shell takes everything inside as it is, line breaks included; a quote is closed, escaped and reopened. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A placeholder to fill in: letters, digits and `._-` only inside, so it stays text for the shell, curl and a URL. */
function placeholder(name: string): string {
  return `<${name.replace(/[^\w.-]+/g, '_').slice(0, 80)}>`;
}

/** Where the user puts the path of a file: `<path to contract.pdf>`, which names no file, so curl stops until it is filled. */
function filePlaceholder(fileName: string): string {
  return `<path to ${fileName.replace(/[^\w. -]+/g, '_').slice(0, 80)}>`;
}

/** A comment line naming what was left out; JSON quoting keeps a line break in a name from ending the comment. */
function leftOut(what: string, name: string, why: string): string {
  return `# Left out: ${what} ${JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name)}, ${why}.`;
}

export interface CapturedFile {
  fileName: string;
  mimeType: string;
}

export interface CapturedCall {
  method: string;
  /** Where the test addresses are, as the console reaches the middleware: `http://host/api/automation/webhook-test`. */
  testBase: string;
  /** The registered path template (`orders/:id`); its `:param` segments are filled from `params`. */
  path: string | undefined;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  /** Binary entries of the trigger item: property → its file. */
  files: Record<string, CapturedFile>;
}

function filledPath(template: string, params: Record<string, unknown>): string {
  return template.split('/').map((segment) => {
    if (!segment.startsWith(':')) return segment;
    const name = segment.slice(1);
    const value = params[name];
    if (value === undefined) return segment;
    return value === REDACTED ? placeholder(name) : encodeURIComponent(String(value));
  }).join('/');
}

function queryOf(query: Record<string, unknown>): string {
  return qs.stringify(query, {
    filter: (prefix: string, value: unknown) => {
      if (value !== REDACTED) return value;
      const names = prefix.split(/[[\]]+/).filter((part) => part !== '' && !/^\d+$/.test(part));
      return `${MARK}${names.at(-1) ?? 'value'}`;
    },
    encoder: (text: string, encode, charset, type) => (
      type === 'value' && typeof text === 'string' && text.startsWith(MARK) ? placeholder(text.slice(MARK.length)) : encode(text, encode, charset)
    ),
  });
}

function headerArguments(headers: Record<string, unknown>, mediaType: string, notes: string[]): string[] {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (LEFT_OUT.has(lower) || (lower === 'content-type' && mediaType === 'multipart/form-data')) continue;
    if (!HEADER_NAME.test(name)) {
      notes.push(leftOut('the header', name, 'whose name is not a header name'));
      continue;
    }
    const values = [value].flat();
    const shown = values.includes(REDACTED) ? placeholder(lower) : values.map(String).join(', ');
    if (HEADER_CONTROL.test(shown)) {
      notes.push(leftOut('the header', lower, 'whose value holds a line break or a control character'));
      continue;
    }
    // `name:` with nothing after it tells curl to drop the header; `name;` sends it empty.
    parts.push(`-H ${quote(shown.trim() === '' ? `${lower};` : `${lower}: ${shown}`)}`);
  }
  return parts;
}

function fileArgument(property: string, file: CapturedFile, notes: string[]): string | undefined {
  if (property === '' || FORM_NAME_UNSENDABLE.test(property)) {
    notes.push(leftOut('the file field', property, 'whose name curl cannot send as written (it holds =, " or a control character)'));
    return undefined;
  }
  const type = /^[\w.+-]+\/[\w.+-]+$/.test(file.mimeType) ? `;type=${file.mimeType}` : '';
  return `-F ${quote(`${property}=@${filePlaceholder(file.fileName)}${type}`)}`;
}

function formArguments(body: unknown, files: Record<string, CapturedFile>, notes: string[]): string[] {
  const parts: string[] = [];
  const fields = typeof body === 'object' && body !== null ? Object.entries(body as Record<string, unknown>) : [];
  for (const [name, value] of fields) {
    if (name === '' || FORM_NAME_UNSENDABLE.test(name)) {
      notes.push(leftOut('the form field', name, 'whose name curl cannot send as written (it holds =, " or a control character)'));
      continue;
    }
    for (const one of Array.isArray(value) ? value : [value]) {
      const text = typeof one === 'string' ? one : JSON.stringify(one);
      if (text.includes('\u0000')) notes.push(leftOut('a value of the form field', name, 'which holds a NUL byte that no shell word can carry'));
      else parts.push(`--form-string ${quote(`${name}=${text}`)}`);
    }
  }
  for (const [property, file] of Object.entries(files)) {
    const argument = fileArgument(property, file, notes);
    if (argument !== undefined) parts.push(argument);
  }
  return parts;
}

function bodyArguments(call: CapturedCall, mediaType: string, notes: string[]): string[] {
  const { body, files } = call;
  if (mediaType === 'multipart/form-data') return formArguments(body, files, notes);
  const [first] = Object.values(files);
  const emptyBody = body === undefined || (typeof body === 'object' && body !== null && Object.keys(body).length === 0);
  // -T fails when its file is missing, where --data-binary @file would send an empty body.
  if (first !== undefined && emptyBody) return [`-T ${quote(filePlaceholder(first.fileName))}`];
  if (emptyBody && mediaType === '') return [];
  const text = typeof body === 'string' ? body
    : mediaType === 'application/x-www-form-urlencoded' ? qs.stringify(body) : JSON.stringify(body ?? {});
  if (text.includes('\u0000')) {
    notes.push('# The body holds a NUL byte, which no shell word can carry: send it from a file with -T instead.');
    return [`-T ${quote(filePlaceholder('the body'))}`];
  }
  return [`--data-raw ${quote(text)}`];
}

export function curlOf(call: CapturedCall): string {
  const path = call.path === undefined ? placeholder('path') : filledPath(call.path, call.params);
  const search = queryOf(call.query);
  const url = `${call.testBase}/${path}${search === '' ? '' : `?${search}`}`;
  const contentType = typeof call.headers['content-type'] === 'string' ? call.headers['content-type'] : '';
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const notes: string[] = [];
  const parts = [`${call.method === 'HEAD' ? 'curl --head' : `curl -X ${call.method}`} ${quote(url)}`];
  parts.push(...headerArguments(call.headers, mediaType, notes));
  parts.push(...bodyArguments(call, mediaType, notes));
  return [...notes, parts.join(' \\\n  ')].join('\n');
}
