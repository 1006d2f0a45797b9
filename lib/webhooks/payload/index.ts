/**
 * Payload: turn the request body into the trigger item's `body` and `binary`. This file only chooses the parser by
 * media type (or takes the body a host parser already read) and is the one way into the stage: the whole-body parsers
 * (JSON, form, text, XML) are beside it, the streamed ones (multipart uploads, binary bodies, their files) in
 * ../uploads/, and reading the bytes off the request (pace, inflating, limits) in ../body/; none of them comes back
 * here. Whatever fails, the call's temp files are removed before the error leaves this stage.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { WebhookError } from '../../core/errors.js';
import type { BinaryData } from '../../core/types.js';
import type { PendingSignature } from '../guards/signature.js';
import { contentEncoding, openBodyStream } from '../body/body-stream.js';
import type { BodyType, Kind, NodePayloadOptions, Parsed, Payload, PayloadSettings } from '../body/body-types.js';
import { isJsonType, parseContentType, type ContentType } from '../body/content-type.js';
import { limitError, wholeBodySize, wholeBodyTooLarge, type PayloadLimits } from '../body/limits.js';
import { readBody } from '../body/read-body.js';
import { readRequestBytes, readWholeRequest } from '../body/request-bytes.js';
import { aborted, callerGone } from '../body/request-watch.js';
import { describeBinary } from '../uploads/binary-meta.js';
import { parseStream, parseUploadFromRequest } from '../uploads/streamed.js';
import { TempFiles } from '../uploads/temp-files.js';
import { nestsDeeper, tooDeep } from './depth.js';
import { parseFormBody } from './form.js';
import { parseJsonBody } from './json.js';
import { decodeText } from './text.js';
import { isXmlType, parseXmlBody } from './xml.js';

export type { BodyType, Kind, NodePayloadOptions, Parsed, Payload, PayloadSettings } from '../body/body-types.js';
export type { PayloadLimits } from '../body/limits.js';
export { bodyPace } from '../body/request-watch.js';

type Settings = PayloadSettings & NodePayloadOptions;

/** The cleanup of a call without temp files (compared by identity: nothing to wait for). */
export const noCleanup = (): Promise<void> => Promise.resolve();

/** JSON, form, text and XML are read whole, then parsed; multipart and binary bodies are streamed. */
function isWhole(kind: Kind): boolean {
  return kind !== 'multipart' && kind !== 'binary';
}

/** `multipart/form-data` followed by its parameters: the form's boundary, read by busboy itself. */
const MULTIPART_FORM = /^multipart\/form-data\s*;/i;

/** What an upload needs to know of its type (a shared object: nothing per call). */
const UPLOAD: BodyType = Object.freeze({
  kind: 'multipart',
  contentType: Object.freeze({ mediaType: 'multipart/form-data', charset: undefined, parameters: Object.freeze(Object.create(null) as Record<string, string>) }),
  mimeType: 'multipart/form-data',
});

function bodyTypeOf(req: IncomingMessage, binaryData: boolean): BodyType {
  const header = req.headers['content-type'];
  // A boundary is new with every upload, so its header is never in the parsed-header cache: skip the parse.
  if (!binaryData && header !== undefined && MULTIPART_FORM.test(header)) return UPLOAD;
  const contentType = parseContentType(header);
  return { kind: binaryData ? 'binary' : kindOf(contentType.mediaType), contentType, mimeType: contentType.mediaType || 'application/octet-stream' };
}

function kindOf(mediaType: string): Kind {
  if (isJsonType(mediaType)) return 'json';
  if (mediaType === 'application/x-www-form-urlencoded') return 'form';
  if (mediaType === 'text/plain') return 'text';
  if (isXmlType(mediaType)) return 'xml';
  if (mediaType === 'multipart/form-data') return 'multipart';
  return 'binary';
}

/** Middleware instances (by their settings, built once at the factory) already told about a spent raw body. */
const toldRawBodyGone = new WeakSet<PayloadSettings>();

/**
 * A host may have parsed the body already (express.json() before us); the stream is then spent. The raw bytes
 * survive only where the parser's `verify` hook kept them on `req.rawBody`; without them rawBody cannot be honoured,
 * which the host hears once per middleware (every call would say the same).
 */
function alreadyParsed(req: IncomingMessage, shared: PayloadSettings, node: NodePayloadOptions): Payload | undefined {
  const host = req as IncomingMessage & { body?: unknown; _body?: boolean; rawBody?: unknown; originalUrl?: string };
  if (host._body !== true && !req.readableEnded) return undefined;
  const body = host.body ?? {};
  // The host's parser nests as deep as the body does: held to the same bound as ours, before anything walks it.
  if (nestsDeeper(body, shared.limits.bodyDepth)) throw tooDeep(shared.limits.bodyDepth);
  if (!node.rawBody && !node.binaryData) return { body, cleanup: noCleanup };
  if (Buffer.isBuffer(host.rawBody)) {
    const mimeType = parseContentType(req.headers['content-type']).mediaType || 'application/octet-stream';
    if (node.binaryData) {
      const binary = host.rawBody.length === 0 ? undefined : { [node.binaryPropertyName ?? 'data']: rawBinary(mimeType, host.rawBody) };
      return { body: {}, binary, cleanup: noCleanup };
    }
    return { body, binary: { data: rawBinary(mimeType, host.rawBody) }, cleanup: noCleanup };
  }
  if (!toldRawBodyGone.has(shared)) {
    toldRawBodyGone.add(shared);
    shared.logger.warn({
      path: (host.originalUrl ?? req.url ?? '').split('?')[0],
      contentType: req.headers['content-type'],
    }, 'workflow-webhooks: the raw body is unavailable for a node with the option rawBody or binaryData, because a body parser of '
      + 'the host read the request first; mount the webhook middleware before global body parsers (or keep the bytes '
      + 'on req.rawBody in the parser\'s verify hook). Reported once.');
  }
  return { body, cleanup: noCleanup };
}

/** The untouched bytes of a `rawBody` node, kept in memory. */
function rawBinary(mimeType: string, bytes: Buffer): BinaryData {
  return describeBinary({ mimeType, fileName: undefined, bytes: bytes.length, data: bytes });
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
}

/**
 * The trigger item's body and binary data. A signed call (`signature`) is read whole first, held to
 * `limits.bodySize` whatever its type (a JSON or XML one to `jsonSize`, `xmlSize`), and its signature checked over
 * exactly those bytes before any parser sees them; they are then parsed as any body.
 */
export function parsePayload(
  req: IncomingMessage,
  shared: PayloadSettings,
  node: NodePayloadOptions,
  signature?: PendingSignature,
): Promise<Payload> {
  try {
    if (signature !== undefined) return parseSigned(req, shared, node, signature);
    const parsed = alreadyParsed(req, shared, node);
    if (parsed !== undefined) return Promise.resolve(parsed);
    if (!hasBody(req)) return Promise.resolve({ body: {}, cleanup: noCleanup });
    const type = bodyTypeOf(req, node.binaryData);
    if (isWhole(type.kind)) return parseWhole(req, shared, node, type);
    return parseWithTempFiles(req, shared, node, type, undefined);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/**
 * A signed call's whole body in memory, held to `limits.bodySize` (inflated bytes count), or to the lower limit of its
 * kind (`jsonSize`, `xmlSize`) when it is parsed whole: an uncompressed one read straight from the request, a
 * compressed one through the inflating body stream.
 */
function readWholeBody(req: IncomingMessage, shared: PayloadSettings, kind: Kind): Promise<Buffer> {
  const { limits } = shared;
  const limit = wholeBodySize(kind, limits);
  const tooLarge = (): WebhookError => wholeBodyTooLarge(kind, limits);
  // Not async: the uncompressed body (nearly every call) is the reader's own promise, with no wrapper around it.
  if (contentEncoding(req) !== 'identity') return readInflated(req, shared, limit, tooLarge);
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.reject(tooLarge());
  return readRequestBytes(req, limit, tooLarge, shared.pace);
}

async function readInflated(req: IncomingMessage, shared: PayloadSettings, limit: number, tooLarge: () => WebhookError): Promise<Buffer> {
  const source = openBodyStream(req, shared.pace);
  let failed = true;
  try {
    const bytes = await readBody(source.stream, limit, tooLarge);
    failed = false;
    return bytes;
  } finally {
    source.close(failed);
  }
}

/** What a body parsed whole becomes, beside its bytes. */
interface Whole {
  type: BodyType;
  limits: PayloadLimits;
  rawBody: boolean;
}

/**
 * A body parsed whole (JSON, form, text, XML): no temp files to clean up. An uncompressed one is parsed the moment
 * its last byte is in, within the one promise of the read. Held to the limit of its kind, from `Content-Length`
 * before a byte is read, and cut off the moment the bytes pass it.
 */
function parseWhole(req: IncomingMessage, shared: PayloadSettings, node: NodePayloadOptions, type: BodyType): Promise<Payload> {
  const whole: Whole = { type, limits: shared.limits, rawBody: node.rawBody };
  const { limits } = shared;
  const limit = wholeBodySize(type.kind, limits);
  const tooLarge = (): WebhookError => wholeBodyTooLarge(type.kind, limits);
  if (contentEncoding(req) !== 'identity') return readInflated(req, shared, limit, tooLarge).then((bytes) => wholePayload(bytes, whole));
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.reject(tooLarge());
  return readWholeRequest(req, limit, tooLarge, shared.pace, wholePayload, whole);
}

function wholePayload(bytes: Buffer, { type, limits, rawBody }: Whole): Payload {
  const body = parseBuffered(type.kind, bytes, type.contentType, limits);
  const { kind } = type;
  return rawBody ? { body, binary: { data: rawBinary(type.mimeType, bytes) }, cleanup: noCleanup, kind } : { body, cleanup: noCleanup, kind };
}

async function parseWithTempFiles(
  req: IncomingMessage, shared: PayloadSettings, node: NodePayloadOptions, type: BodyType, bytes: Buffer | undefined,
): Promise<Payload> {
  const tempFiles = new TempFiles(shared.tempDir);
  try {
    // parseBody made a fresh object: completed in place rather than copied.
    const payload = await parseBody(req, shared, node, type, tempFiles, bytes) as Payload;
    // Every file is written by now: files that all stayed in memory leave nothing to wait for after the run.
    payload.cleanup = tempFiles.used ? () => tempFiles.removeAll() : noCleanup;
    payload.kind = type.kind;
    return payload;
  } catch (error) {
    await tempFiles.removeAll();
    throw error;
  }
}

async function parseSigned(req: IncomingMessage, shared: PayloadSettings, node: NodePayloadOptions, signature: PendingSignature): Promise<Payload> {
  const host = req as IncomingMessage & { _body?: boolean; rawBody?: unknown };
  if (host._body === true || req.readableEnded) {
    // The host's parser has the body; only the bytes its verify hook kept can be checked.
    if (!Buffer.isBuffer(host.rawBody)) {
      throw new WebhookError('SIGNATURE_BODY_UNAVAILABLE', 'The signature cannot be checked: a body parser of the host read the body and kept no raw bytes.', {
        hint: 'Mount the webhook middleware before global body parsers, or keep the bytes on req.rawBody (Express: the parser\'s verify hook; NestJS: NestFactory.create(AppModule, { rawBody: true })).',
      });
    }
    const verified = await signature.verify(host.rawBody);
    const parsed = alreadyParsed(req, shared, node) as Payload;
    return { ...parsed, signature: verified };
  }
  const type = bodyTypeOf(req, node.binaryData);
  const bytes = hasBody(req) ? await readWholeBody(req, shared, type.kind) : Buffer.alloc(0);
  const verified = await signature.verify(bytes);
  const payload = bytes.length === 0 ? { body: {}, cleanup: noCleanup } : await parseWithTempFiles(req, shared, node, type, bytes);
  return { ...payload, signature: verified };
}

function parseBuffered(kind: Kind, bytes: Buffer, contentType: ContentType, limits: PayloadLimits): unknown {
  switch (kind) {
    case 'json': return parseJsonBody(bytes, contentType.charset, limits.bodyDepth);
    case 'form': return parseFormBody(bytes, contentType.charset, limits.fields, () => limitError('LIMIT_FIELD_COUNT', limits));
    case 'xml': return parseXmlBody(bytes, contentType.charset, limits.bodyDepth);
    default: return decodeText(bytes, contentType.charset);
  }
}

/**
 * Parses the request body, streamed from the request, or from `bytes` a signed call was read into. Not async
 * itself, so that an upload's promise is the parser's own; what throws here becomes the returned rejection.
 */
function parseBody(
  req: IncomingMessage, shared: PayloadSettings, node: NodePayloadOptions, type: BodyType, tempFiles: TempFiles, bytes: Buffer | undefined,
): Promise<Parsed> {
  try {
    const { limits } = shared;
    // JSON, form, text and XML reach this only as a signed call's bytes; parseWhole reads the others.
    if (isWhole(type.kind)) return Promise.resolve(fromBytes(bytes ?? Buffer.alloc(0), type, { limits, rawBody: node.rawBody }));
    if (bytes !== undefined) return parseStream(req, Readable.from([bytes]), type, shared, node, tempFiles);
    const identity = contentEncoding(req) === 'identity';
    if (identity && type.kind === 'binary' && Number(req.headers['content-length'] ?? 0) > limits.binarySize) {
      throw limitError('LIMIT_BINARY_SIZE', limits);
    }
    // An uncompressed upload goes from the request straight into busboy, which watches the request itself.
    if (identity && type.kind === 'multipart' && !node.rawBody) {
      if (callerGone(req)) throw aborted();
      return parseUploadFromRequest(req, shared, node, tempFiles);
    }
    return parseBodyStream(req, shared, node, type, tempFiles);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** A compressed body, or one no parser understands: through the body stream, which inflates and watches it. */
async function parseBodyStream(req: IncomingMessage, shared: PayloadSettings, node: NodePayloadOptions, type: BodyType, tempFiles: TempFiles): Promise<Parsed> {
  const source = openBodyStream(req, shared.pace);
  let failed = true;
  try {
    const parsed = await parseStream(req, source.stream, type, shared, node, tempFiles);
    failed = false;
    return parsed;
  } finally {
    source.close(failed);
  }
}

/** A buffered kind (JSON, form, text, XML) from its bytes, with the raw bytes beside it for a rawBody node. */
function fromBytes(bytes: Buffer, { kind, contentType, mimeType }: BodyType, settings: Pick<Settings, 'limits' | 'rawBody'>): Parsed {
  const body = parseBuffered(kind, bytes, contentType, settings.limits);
  return settings.rawBody ? { body, binary: { data: rawBinary(mimeType, bytes) } } : { body };
}
