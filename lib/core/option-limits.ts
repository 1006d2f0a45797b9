/**
 * The payload and upload options (`limits`, `uploads`): their types, defaults and checks, resolved once at the
 * factory. A wait's own `limits` are resolved here too, over the middleware's, and never above them. The resolved
 * shapes (PayloadLimits, RequestLimits) live here, in the core, so the stages that enforce them and the waiting
 * addresses that narrow them share one definition.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute } from 'node:path';
import { byteSize, fail, group, positiveInteger, type ByteSize } from './option-checks.js';

const MIB = 1024 * 1024;

/** The payload limits a call is held to (413, or 400 BODY_TOO_DEEP, past one), in bytes or counts. */
export interface PayloadLimits {
  /** Buffered bodies: JSON, form, text, XML. */
  bodySize: number;
  /** JSON bodies, parsed on the event loop: below bodySize, since parsing costs far more per byte than reading. */
  jsonSize: number;
  /** XML bodies, parsed on the event loop: lower still, XML costing 20 to 50 times what JSON costs per byte. */
  xmlSize: number;
  /** Whole-body binary uploads (any other content type). */
  binarySize: number;
  /** One multipart file. */
  fileSize: number;
  /** All multipart files of one call. */
  totalFileSize: number;
  files: number;
  fields: number;
  parts: number;
  fieldSize: number;
  fieldNameSize: number;
  /** Levels of JSON arrays and objects, or XML elements, a body may nest (BODY_TOO_DEEP, 400, past it). */
  bodyDepth: number;
  /** Units of work one call's JSON Schema checks may cost (422 PAYLOAD_TOO_COSTLY past it). */
  schemaWork: number;
}

/** The request line and header limits (414, 431 past one). */
export interface RequestLimits {
  urlLength: number;
  headerCount: number;
  headerSize: number;
}

/** Payload limits in bytes (a number, or a string such as `'500kb'`, `'1mb'`) or counts; past one, the call gets a
 * 413 whose code names it (414, 431 for the URL and headers; 400 BODY_TOO_DEEP for nesting). */
export interface WebhookLimitsOptions {
  /** Buffered bodies (JSON, form, text, XML), after inflating. Default 16 MiB. */
  bodySize?: ByteSize;
  /**
   * JSON bodies, after inflating (and never above `bodySize`). Default 4 MiB: parsing runs on the event loop, where
   * the costliest JSON (an object of a million short keys) takes about 175 ms per MiB, during which no other call
   * is served (413 `LIMIT_JSON_SIZE` past it).
   */
  jsonSize?: ByteSize;
  /**
   * XML bodies, after inflating (and never above `bodySize`). Default 1 MiB: checking and parsing XML on the event
   * loop takes 0.2 to 0.9 s per MiB (the most for an element of many attributes), during which no other call is
   * served (413 `LIMIT_XML_SIZE` past it).
   */
  xmlSize?: ByteSize;
  /** Whole-body binary uploads (any other content type). Default 200 MiB. */
  binarySize?: ByteSize;
  /** One multipart file. Default 200 MiB. */
  fileSize?: ByteSize;
  /** All multipart files of one call. Default 200 MiB. */
  totalFileSize?: ByteSize;
  /** Multipart files per call. Default 100. */
  files?: number;
  /** Form fields per call (multipart and urlencoded). Default 1000. */
  fields?: number;
  /** Multipart parts per call (fields + files). Default 1100. */
  parts?: number;
  /** One multipart field value. Default 1 MiB. */
  fieldSize?: ByteSize;
  /** One multipart field or file field name. Default 200 bytes. */
  fieldNameSize?: ByteSize;
  /**
   * Levels a JSON body's arrays and objects, or an XML body's elements, may nest. Default 64, as .NET's JSON readers
   * allow: real webhook payloads nest a dozen levels at most, and a body nested thousands deep would overflow the
   * stack of whatever walks it recursively (400 `BODY_TOO_DEEP` past it).
   */
  bodyDepth?: number;
  /**
   * Units of work one call's JSON Schema checks (body, query and headers together) may cost. Default 2 500 000: about
   * 0.1 s of the slowest checks on a 2-core machine, during which no other call is served. A unit is about one
   * subschema applied to one value, or one character a pattern reads per instruction of its program; a call past it
   * is refused 422 `PAYLOAD_TOO_COSTLY`, checked no further. Raise it for large bodies against large schemas.
   */
  schemaWork?: number;
  /** The request URL, in characters. Default 8192 (414 past it). */
  urlLength?: number;
  /** Request headers. Default 100 (431 past it). */
  headerCount?: number;
  /** Bytes of all request header names and values. Default 12 KiB (431 past it). */
  headerSize?: ByteSize;
}

export interface WebhookUploadsOptions {
  /** Where files that do not stay in memory are written. Default: the OS temp directory. */
  tempDir?: string;
  /** Bytes of one call's files kept in memory before the rest goes to disk. Default 1 MiB. */
  memoryThreshold?: ByteSize;
}

export const DEFAULT_LIMITS: Readonly<PayloadLimits & RequestLimits> = Object.freeze({
  bodySize: 16 * MIB,
  jsonSize: 4 * MIB,
  xmlSize: MIB,
  binarySize: 200 * MIB,
  fileSize: 200 * MIB,
  totalFileSize: 200 * MIB,
  files: 100,
  fields: 1000,
  parts: 1100,
  fieldSize: MIB,
  fieldNameSize: 200,
  bodyDepth: 64,
  schemaWork: 2_500_000,
  urlLength: 8192,
  headerCount: 100,
  headerSize: 12 * 1024,
});

const BYTE_LIMITS = new Set<string>(['bodySize', 'jsonSize', 'xmlSize', 'binarySize', 'fileSize', 'totalFileSize', 'fieldSize', 'fieldNameSize', 'headerSize']);

/** Limits from the option, over `base` (the defaults; a wait's own limits go over the middleware's and stay below them). */
export function resolveLimits(value: WebhookLimitsOptions | undefined, base = DEFAULT_LIMITS): Readonly<PayloadLimits & RequestLimits> {
  const names = Object.keys(DEFAULT_LIMITS) as (keyof typeof DEFAULT_LIMITS)[];
  const given = group('limits', value, names);
  const limits = { ...base };
  for (const name of names) limits[name] = (BYTE_LIMITS.has(name) ? byteSize : positiveInteger)(`limits.${name}`, given[name], base[name]);
  if (base !== DEFAULT_LIMITS) for (const name of names) limits[name] = Math.min(limits[name], base[name]);
  return Object.freeze(limits);
}

export function resolveUploads(value: WebhookUploadsOptions | undefined): Readonly<{ tempDir: string; memoryThreshold: number }> {
  const given = group('uploads', value, ['tempDir', 'memoryThreshold']);
  const tempDir = given.tempDir ?? tmpdir();
  if (typeof tempDir !== 'string' || !isAbsolute(tempDir)) fail('uploads.tempDir', 'an absolute directory path', tempDir);
  // Created if missing and proven writable now, so a bad directory fails at start-up rather than on the first upload.
  try {
    mkdirSync(tempDir, { recursive: true });
    accessSync(tempDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    fail('uploads.tempDir', `a directory this process can create and write (${(error as Error).message})`, tempDir);
  }
  const memoryThreshold = byteSize('uploads.memoryThreshold', given.memoryThreshold, MIB, true);
  return Object.freeze({ tempDir, memoryThreshold });
}

