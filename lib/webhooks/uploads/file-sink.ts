/**
 * Collects one file's bytes with bounded memory: it stays in memory while the call's in-memory budget lasts, then
 * moves to a temp file and streams there with backpressure. Over `limit` it fails with the given error at once; a
 * temp file that cannot be written fails the file too (never a `path` to bytes that are not there).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { WebhookError } from '../../core/errors.js';
import { aborted } from '../body/request-watch.js';
import { storeFailed, TEMP_FILE_MODE, type TempFiles } from './temp-files.js';

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
  /** Told of every chunk's size as it arrives (a limit shared by several files). */
  onBytes?: (bytes: number) => void;
}

export interface CollectedFile {
  size: number;
  /** The bytes held in memory, in the chunks they arrived in (joined only when read: see joined-data.ts). */
  chunks?: readonly Buffer[];
  path?: string;
}

export function collectFile(stream: Readable, settings: SinkSettings): Promise<CollectedFile> {
  return new Promise((resolve, reject) => {
    /** Bytes not yet on disk: the in-memory file, or what arrived while its temp file was being opened. */
    const chunks: Buffer[] = [];
    let held = 0;
    let size = 0;
    let mode: 'memory' | 'opening' | 'disk' = 'memory';
    let file: WriteStream | undefined;
    let path: string | undefined;
    let ended = false;
    let failure: WebhookError | undefined;
    let settled = false;

    const detach = (): void => {
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const settle = (result: CollectedFile | WebhookError): void => {
      if (settled) return;
      settled = true;
      if (result instanceof WebhookError) reject(result);
      else resolve(result);
    };
    const fail = (error: WebhookError): void => {
      if (failure !== undefined || settled) return;
      failure = error;
      detach();
      stream.on('error', () => undefined);
      stream.resume();
      // With a file open, settle only once it is closed: the caller removes the temp directory right after.
      if (file === undefined) settle(error);
      else file.destroy();
    };
    const onFileClose = (): void => {
      // 'close' follows a finished write, a write error and our own destroy(); only the first is a success.
      if (failure !== undefined) settle(failure);
      else settle({ size, path: path as string });
    };
    const openFile = async (): Promise<void> => {
      mode = 'opening';
      // Nothing more until the file is open: chunks arriving meanwhile would pile up in memory.
      stream.pause();
      let chosen: string;
      try {
        chosen = await settings.tempFiles.next();
      } catch (error) {
        fail(error instanceof WebhookError ? error : storeFailed(error));
        return;
      }
      if (failure !== undefined) return;
      path = chosen;
      mode = 'disk';
      file = createWriteStream(chosen, { flags: 'wx', mode: TEMP_FILE_MODE });
      file.on('error', (error) => fail(storeFailed(error)));
      file.once('close', onFileClose);
      file.on('drain', () => stream.resume());
      settings.budget.giveBack(held);
      held = 0;
      let flowing = true;
      for (const chunk of chunks.splice(0)) flowing = file.write(chunk);
      if (ended) file.end();
      else if (flowing) stream.resume();
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > settings.limit) {
        fail(settings.tooLarge());
        return;
      }
      settings.onBytes?.(chunk.length);
      if (failure !== undefined) return;
      if (mode === 'disk') {
        if ((file as WriteStream).write(chunk) === false) stream.pause();
        return;
      }
      chunks.push(chunk);
      if (mode === 'opening') return;
      if (settings.budget.take(chunk.length)) held += chunk.length;
      else void openFile();
    };
    const onEnd = (): void => {
      // The listeners stay: the 'close' that follows a normal end, or a late error, must not fail the file (the
      // handlers check `ended`), and detaching them would cost every upload more than keeping them.
      ended = true;
      if (mode === 'memory') settle({ size, chunks });
      else if (mode === 'disk') (file as WriteStream).end();
      // 'opening': openFile() ends the file once it is open.
    };
    const onError = (error: Error): void => {
      if (!ended) fail(error instanceof WebhookError ? error : aborted(error));
    };
    const onClose = (): void => {
      if (!ended) fail(aborted());
    };
    // The size is checked here, chunk by chunk, for every kind of stream (busboy is given no file size limit).
    stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
