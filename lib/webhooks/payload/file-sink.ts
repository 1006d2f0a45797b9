/**
 * Collects one file's bytes with bounded memory: it stays in memory while the call's in-memory budget lasts, then
 * moves to a temp file and streams there with backpressure. Over `limit` it fails with the given error at once.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { WebhookError } from '../errors.js';
import type { TempFiles } from './temp-files.js';

/** How much of a call's files may stay in memory, shared by all its files. */
export class MemoryBudget {
  #left: number;
  constructor(bytes: number) {
    this.#left = bytes;
  }
  take(bytes: number): boolean {
    if (bytes > this.#left) return false;
    this.#left -= bytes;
    return true;
  }
  giveBack(bytes: number): void {
    this.#left += bytes;
  }
}

export interface SinkSettings {
  limit: number;
  tooLarge: () => WebhookError;
  budget: MemoryBudget;
  tempFiles: TempFiles;
}

export interface CollectedFile {
  size: number;
  data?: Buffer;
  path?: string;
}

export function collectFile(stream: Readable, settings: SinkSettings): Promise<CollectedFile> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let file: WriteStream | undefined;
    let path: string | undefined;
    let settled = false;
    const fail = (error: WebhookError): void => {
      if (settled) return;
      settled = true;
      stream.off('data', onData);
      stream.resume();
      if (file === undefined) {
        reject(error);
        return;
      }
      // Settle only once the file is closed: removing it before its open completes would leave it behind.
      file.once('close', () => reject(error));
      file.destroy();
    };
    const toDisk = (): void => {
      path = settings.tempFiles.next();
      file = createWriteStream(path, { flags: 'wx' });
      file.on('error', (error) => fail(new WebhookError('INTERNAL_ERROR', 'Could not store an uploaded file.', { cause: error })));
      file.on('drain', () => stream.resume());
      for (const chunk of chunks.splice(0)) {
        settings.budget.giveBack(chunk.length);
        file.write(chunk);
      }
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > settings.limit) {
        fail(settings.tooLarge());
        return;
      }
      if (file === undefined && settings.budget.take(chunk.length)) {
        chunks.push(chunk);
        return;
      }
      if (file === undefined) toDisk();
      if (file?.write(chunk) === false) stream.pause();
    };
    stream.on('data', onData);
    stream.once('limit', () => fail(settings.tooLarge()));
    stream.once('error', (error) => fail(error instanceof WebhookError ? error : new WebhookError('BODY_ABORTED',
      'The request body was aborted before it was complete.', { cause: error })));
    let ended = false;
    stream.once('close', () => {
      if (!ended) fail(new WebhookError('BODY_ABORTED', 'The request body was aborted before it was complete.'));
    });
    stream.once('end', () => {
      ended = true;
      if (settled) return;
      if (file === undefined) {
        settled = true;
        resolve({ size, data: Buffer.concat(chunks, size) });
        return;
      }
      file.end(() => {
        if (settled) return;
        settled = true;
        resolve({ size, path });
      });
    });
  });
}
