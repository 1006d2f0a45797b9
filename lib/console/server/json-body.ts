/**
 * Reads a console POST's JSON body, bounded. A host whose own JSON parser ran before the console (an app-wide
 * `express.json()`) has read the stream already: its `req.body` is taken as it is.
 */
import type { IncomingMessage } from 'node:http';
import { parseContentType } from '../../webhooks/body/content-type.js';
import { badRequest } from './answer.js';

function readAll(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (message: string): void => {
      req.off('data', onData);
      // The rest is drained, not kept, so that the connection can answer and be reused.
      req.resume();
      reject(badRequest(message));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) fail(`The request body is larger than ${limit} bytes, the most this route takes.`);
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    req.once('error', () => fail('The request body could not be read.'));
  });
}

/** The body as JSON: an empty body is `{}`; anything but JSON (by Content-Type or by content) is a 400. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (req.readableEnded && parsed !== undefined) return parsed;
  const length = Number(req.headers['content-length'] ?? NaN);
  if (length > limit) {
    req.resume();
    throw badRequest(`The request body is larger than ${limit} bytes, the most this route takes.`);
  }
  const bytes = await readAll(req, limit);
  if (bytes.length === 0) return {};
  if (parseContentType(req.headers['content-type']).mediaType !== 'application/json') throw badRequest('Send the body as JSON (Content-Type: application/json).');
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
}

/** A JSON object body, or `{}` for anything else. */
export function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {};
}
