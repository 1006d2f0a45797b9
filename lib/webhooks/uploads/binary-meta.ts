/**
 * The metadata of every binary entry the payload and uploads stages make (uploaded files, raw bodies, `rawBody`), in
 * the shape the known platform's nodes read: `mimeType`, `fileName`, `fileExtension`, `fileType`, `bytes` and the
 * display text `fileSize`. A body without a file name gets a generated one, so every entry can be saved or attached as it is.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import prettyBytes from 'pretty-bytes';
import type { BinaryData, BinaryFileType } from '../../core/types.js';
import { defineData } from './joined-data.js';

type MimeTypes = typeof import('mime-types');

/**
 * mime-types (and its database) is loaded by the first binary entry, so a host whose callers only send JSON never
 * loads it; required, not imported, because the entries are made synchronously once the bytes are in.
 */
let mimeTypes: MimeTypes | undefined;

export interface BinaryContent {
  mimeType: string;
  /** The name the caller gave (a multipart part's filename, a Content-Disposition), if any. */
  fileName: string | undefined;
  bytes: number;
  /** The bytes in memory, as one Buffer or as the chunks they arrived in. */
  data?: Buffer;
  chunks?: readonly Buffer[];
  path?: string;
}

/** The coarse kind of a media type, as the platform derives it: json, html, image, audio, video, text or pdf. */
export function fileTypeOf(mimeType: string): BinaryFileType | undefined {
  const type = mimeType.toLowerCase();
  if (type.startsWith('application/json')) return 'json';
  if (type.startsWith('text/html')) return 'html';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('text/') || type.startsWith('application/javascript')) return 'text';
  if (type.startsWith('application/pdf')) return 'pdf';
  return undefined;
}

/** The file name's extension without its dot, else the usual one of the media type (`bin` for octet-stream). */
export function fileExtensionOf(fileName: string, mimeType: string): string | undefined {
  const fromName = extname(fileName).slice(1);
  if (fromName !== '') return fromName;
  mimeTypes ??= createRequire(import.meta.url)('mime-types') as MimeTypes;
  return mimeTypes.extension(mimeType) || undefined;
}

/** A binary entry with its full metadata; `data` or `path` as the bytes were kept (`data` joined from chunks when read). */
export function describeBinary(content: BinaryContent): BinaryData {
  const fileName = content.fileName ?? randomUUID();
  const binary: BinaryData = {
    mimeType: content.mimeType,
    fileName,
    bytes: content.bytes,
    fileSize: prettyBytes(content.bytes),
  };
  const fileExtension = fileExtensionOf(fileName, content.mimeType);
  if (fileExtension !== undefined) binary.fileExtension = fileExtension;
  const fileType = fileTypeOf(content.mimeType);
  if (fileType !== undefined) binary.fileType = fileType;
  if (content.data !== undefined) binary.data = content.data;
  else if (content.chunks !== undefined) defineData(binary, content.chunks, content.bytes);
  if (content.path !== undefined) binary.path = content.path;
  return binary;
}
