/**
 * Bodies no parser understands (octet-stream, images, PDFs, a missing content type): `body` stays `{}` and the
 * whole body becomes one binary entry, streamed through a FileSink with its own size limit.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { BinaryData } from '../../core/types.js';
import { describeBinary } from './binary-meta.js';
import { collectFile, type SinkSettings } from './file-sink.js';

/** The file name of a `Content-Disposition` header: `filename*` (RFC 5987) first, then `filename`. */
export function dispositionFileName(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const extended = /filename\*\s*=\s*([\w!#$&+.^`|~-]+)'[\w-]*'([^;\s]+)/i.exec(header);
  if (extended !== null) {
    try {
      return baseName(decodeURIComponent(extended[2] as string));
    } catch {
      // An undecodable extended name falls back to the plain one.
    }
  }
  const plain = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  if (plain === null) return undefined;
  const name = plain[1] === undefined ? plain[2] : plain[1].replace(/\\(.)/g, '$1');
  return name === undefined || name === '' ? undefined : baseName(name);
}

/** Never a path: a caller's `../../etc/passwd` is only ever a name. */
function baseName(name: string): string {
  return name.split(/[\\/]/).pop() ?? name;
}

export async function collectBinaryBody(
  headers: IncomingHttpHeaders,
  mediaType: string,
  stream: Readable,
  sink: SinkSettings,
): Promise<BinaryData | undefined> {
  const collected = await collectFile(stream, sink);
  if (collected.size === 0) return undefined;
  return describeBinary({
    mimeType: mediaType || 'application/octet-stream',
    fileName: dispositionFileName(headers['content-disposition']),
    bytes: collected.size,
    chunks: collected.chunks,
    path: collected.path,
  });
}
