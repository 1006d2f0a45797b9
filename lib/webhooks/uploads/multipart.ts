/**
 * `multipart/form-data` with busboy: text fields into `body`, files streamed through a FileSink (memory while the
 * call's budget lasts, then a temp file). Every limit is a coded 413; a malformed body is a 400; on any failure all
 * file streams are closed before the promise settles, so the caller can remove every temp file.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { WebhookError, type WebhookErrorCode } from '../../core/errors.js';
import type { BinaryData } from '../../core/types.js';
import { addField, type Fields } from '../body/fields.js';
import { collectFile, type MemoryBudget } from './file-sink.js';
import { limitError, type PayloadLimits } from '../body/limits.js';
import { nameUploadedFiles, type UploadedFile } from './file-names.js';
import { watchRequest, type BodyPace } from '../body/request-watch.js';
import type { TempFiles } from './temp-files.js';

export interface MultipartSettings {
  limits: PayloadLimits;
  budget: MemoryBudget;
  tempFiles: TempFiles;
  /** Node option binaryPropertyName: files become `<name>0`, `<name>1`, … */
  binaryPropertyName: string | undefined;
  /** Binary property names already taken (the raw body's `data`). */
  reserved: ReadonlySet<string>;
  /**
   * Set when `stream` is the request itself (an uncompressed body, piped into busboy as it comes): the parser then
   * watches it for a hang-up, a stall and a trickle, as this says.
   */
  requestPace?: BodyPace | undefined;
}

export interface MultipartResult {
  body: Fields;
  binary: Record<string, BinaryData> | undefined;
}

/** Bytes a parser may take from the request ahead of a file being written. */
const PARSER_HIGH_WATER_MARK = 128 * 1024;

function malformed(detail: string, cause?: unknown): WebhookError {
  return new WebhookError('BODY_INVALID_MULTIPART', 'The submitted form data could not be parsed.', { hint: detail, cause });
}

export function parseMultipart(headers: IncomingHttpHeaders, stream: Readable, settings: MultipartSettings): Promise<MultipartResult> {
  const { limits } = settings;
  let parser: busboy.Busboy;
  try {
    // Every limit allows exactly its number and refuses one more. busboy's own limits fire on reaching the number
    // (a file of exactly fileSize bytes is "truncated"), so files, fields and sizes are checked here, a field value
    // is cut one byte past its limit (a cut means it was too long), and busboy counts one part more than allowed:
    // only it sees the parts it skips (no Content-Disposition), which must not flood past the limit.
    // highWaterMark above one socket read (64 KiB): with busboy's 16 KiB every chunk of the request reported
    // backpressure, so the pipe paused and resumed the request once per chunk although busboy parses synchronously.
    // It holds more only while a file waits for its temp file, and only up to this.
    parser = busboy({ headers, defParamCharset: 'utf8', highWaterMark: PARSER_HIGH_WATER_MARK, limits: { fieldSize: limits.fieldSize + 1, parts: limits.parts + 1 } });
  } catch (error) {
    return Promise.reject(malformed(error instanceof Error ? error.message : 'Bad multipart header.', error));
  }
  return new Promise((resolve, reject) => {
    const body: Fields = {};
    // One slot per file in the order the files were sent: a large first file finishes last but stays first.
    const files: (UploadedFile | undefined)[] = [];
    const sinks: Promise<unknown>[] = [];
    const open = new Set<Readable>();
    let totalSize = 0;
    let fileCount = 0;
    let fieldCount = 0;
    let failed = false;
    let parsed = false;

    const fail = (error: WebhookError): void => {
      if (failed) return;
      failed = true;
      unwatch?.();
      stream.unpipe(parser);
      stream.resume();
      for (const file of open) file.destroy();
      // Settle only once every file stream is closed, so no temp file is created after the caller cleans up.
      if (open.size === 0) reject(error);
      else void Promise.allSettled(sinks).then(() => reject(error));
    };
    const overLimit = (code: WebhookErrorCode) => () => fail(limitError(code, limits));
    const unwatch = settings.requestPace === undefined ? undefined : watchRequest(stream as IncomingMessage, settings.requestPace, fail);
    const done = (): void => {
      if (failed || !parsed || open.size > 0) return;
      const sent = files.filter((file) => file !== undefined);
      resolve({ body, binary: nameUploadedFiles(sent, settings.binaryPropertyName, settings.reserved) });
    };

    /**
     * The part just begun is one too many: the code of the count it breaks, parts first. Parts are counted here too
     * (busboy counts them only as they end), so a file past the part limit is refused before its bytes are read.
     */
    const countBroken = (count: number, limit: number, code: WebhookErrorCode): WebhookErrorCode | undefined => {
      if (fileCount + fieldCount > limits.parts) return 'LIMIT_PART_COUNT';
      return count > limit ? code : undefined;
    };

    parser.on('field', (name, value, info) => {
      if (failed) return;
      const broken = countBroken(++fieldCount, limits.fields, 'LIMIT_FIELD_COUNT');
      if (broken !== undefined) return overLimit(broken)();
      if (Buffer.byteLength(name) > limits.fieldNameSize) return overLimit('LIMIT_FIELD_NAME_SIZE')();
      if (info.valueTruncated) return overLimit('LIMIT_FIELD_SIZE')();
      addField(body, name, value);
    });
    parser.on('file', (name, file, info) => {
      if (failed) return file.resume();
      const broken = countBroken(++fileCount, limits.files, 'LIMIT_FILE_COUNT');
      if (broken !== undefined || Buffer.byteLength(name) > limits.fieldNameSize) {
        file.resume();
        return overLimit(broken ?? 'LIMIT_FIELD_NAME_SIZE')();
      }
      open.add(file);
      const slot = files.push(undefined) - 1;
      const sink = collectFile(file, {
        limit: limits.fileSize,
        tooLarge: () => limitError('LIMIT_FILE_SIZE', limits),
        budget: settings.budget,
        tempFiles: settings.tempFiles,
        // All files together are held to totalFileSize, counted as their bytes arrive.
        onBytes: (bytes) => {
          totalSize += bytes;
          if (totalSize > limits.totalFileSize) overLimit('LIMIT_TOTAL_FILE_SIZE')();
        },
      }).then((collected) => {
        open.delete(file);
        // Browsers send an empty part for a file input left blank: no name, no bytes.
        if (collected.size !== 0 || (info.filename ?? '') !== '') {
          files[slot] = { field: name, fileName: info.filename || undefined, mimeType: info.mimeType, ...collected };
        }
        done();
      }, (error: unknown) => {
        open.delete(file);
        fail(error as WebhookError);
      });
      sinks.push(sink);
    });
    parser.on('partsLimit', overLimit('LIMIT_PART_COUNT'));
    parser.on('error', (error: Error) => fail(error instanceof WebhookError ? error : malformed(error.message, error)));
    parser.on('close', () => {
      unwatch?.();
      parsed = true;
      done();
    });
    // The request itself is watched by watchRequest (a hang-up closes it); a stream of ours reports with 'error'.
    if (unwatch === undefined) stream.on('error', (error: Error) => fail(error instanceof WebhookError ? error : malformed('The body ended early.', error)));
    stream.pipe(parser);
  });
}
