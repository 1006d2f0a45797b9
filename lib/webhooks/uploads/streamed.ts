/**
 * Bodies streamed to their parser rather than read whole: multipart uploads (straight from the request when
 * uncompressed, else from the decoded body stream) and raw binary bodies. Files stay in memory while the call's
 * budget lasts, then go to the call's temp files.
 */
import { createReadStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { BinaryData } from '../../core/types.js';
import { collectBinaryBody } from './binary.js';
import { describeBinary } from './binary-meta.js';
import { setOwn } from '../body/fields.js';
import { collectFile, MemoryBudget } from './file-sink.js';
import type { BodyType, NodePayloadOptions, Parsed, PayloadSettings } from '../body/body-types.js';
import { limitError } from '../body/limits.js';
import { parseMultipart, type MultipartSettings } from './multipart.js';
import type { BodyPace } from '../body/request-watch.js';
import type { TempFiles } from './temp-files.js';

/** No binary name taken before the uploaded files are named (all but a rawBody node). */
const NONE_RESERVED: ReadonlySet<string> = new Set();

function multipartSettings(
  shared: PayloadSettings, node: NodePayloadOptions, tempFiles: TempFiles, reserved: ReadonlySet<string>, requestPace?: BodyPace,
): MultipartSettings {
  return {
    limits: shared.limits, budget: new MemoryBudget(shared.memoryThreshold), tempFiles, binaryPropertyName: node.binaryPropertyName, reserved,
    requestPace,
  };
}

export async function parseStream(req: IncomingMessage, stream: Readable, type: BodyType, shared: PayloadSettings, node: NodePayloadOptions, tempFiles: TempFiles): Promise<Parsed> {
  const { limits } = shared;
  const { kind, mimeType } = type;
  if (kind === 'binary') {
    const binary = await collectBinaryBody(req.headers, mimeType, stream, {
      budget: new MemoryBudget(shared.memoryThreshold), tempFiles, limit: limits.binarySize, tooLarge: () => limitError('LIMIT_BINARY_SIZE', limits),
    });
    const name = node.rawBody && !node.binaryData ? 'data' : node.binaryPropertyName ?? 'data';
    return binary === undefined ? { body: {} } : { body: {}, binary: { [name]: binary } };
  }
  if (!node.rawBody) return parseMultipart(req.headers, stream, multipartSettings(shared, node, tempFiles, NONE_RESERVED));
  // Keep the raw bytes first, then parse them from where they were kept; one budget for both.
  const settings = multipartSettings(shared, node, tempFiles, new Set(['data']));
  const raw = await collectFile(stream, {
    budget: settings.budget, tempFiles, limit: limits.totalFileSize + limits.bodySize, tooLarge: () => limitError('LIMIT_TOTAL_FILE_SIZE', limits),
  });
  const replay = raw.chunks === undefined ? createReadStream(raw.path as string) : Readable.from(raw.chunks);
  const parsed = await parseMultipart(req.headers, replay, settings);
  const binary: Record<string, BinaryData> = { ...parsed.binary };
  setOwn(binary, 'data', describeBinary({ mimeType, fileName: undefined, bytes: raw.size, chunks: raw.chunks, path: raw.path }));
  return { body: parsed.body, binary };
}

/** An uncompressed upload, piped from the request straight into busboy, which watches the request itself. */
export function parseUploadFromRequest(req: IncomingMessage, shared: PayloadSettings, node: NodePayloadOptions, tempFiles: TempFiles): Promise<Parsed> {
  return parseMultipart(req.headers, req, multipartSettings(shared, node, tempFiles, NONE_RESERVED, shared.pace));
}
