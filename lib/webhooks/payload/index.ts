/**
 * Third stage: turn the request body into the trigger item's `body` (and, for later variants, `binary`).
 * One function chooses the parser by media type; each parser lives in its own file.
 */
import type { IncomingMessage } from 'node:http';
import type { BinaryData } from '../types.js';
import { isJsonType, parseContentType } from './content-type.js';
import { parseJsonBody } from './json.js';
import { readBody } from './read-body.js';

export interface Payload {
  body: unknown;
  binary?: Record<string, BinaryData>;
  /** Removes what the payload left on disk; safe to call more than once. */
  cleanup(): Promise<void>;
}

export interface PayloadLimits {
  bodySize: number;
}

const noCleanup = (): Promise<void> => Promise.resolve();

/** A host may have parsed the body already (express.json() before us); the stream is then spent. */
function alreadyParsed(req: IncomingMessage): { body: unknown } | undefined {
  const host = req as IncomingMessage & { body?: unknown; _body?: boolean };
  if (host._body === true || req.readableEnded) return { body: host.body ?? {} };
  return undefined;
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
}

export async function parsePayload(req: IncomingMessage, limits: PayloadLimits): Promise<Payload> {
  const parsed = alreadyParsed(req);
  if (parsed !== undefined) return { body: parsed.body, cleanup: noCleanup };
  if (!hasBody(req)) return { body: {}, cleanup: noCleanup };
  const contentType = parseContentType(req.headers['content-type']);
  const bytes = await readBody(req, limits.bodySize);
  if (isJsonType(contentType.mediaType)) {
    return { body: parseJsonBody(bytes, contentType.charset), cleanup: noCleanup };
  }
  return { body: {}, cleanup: noCleanup };
}
