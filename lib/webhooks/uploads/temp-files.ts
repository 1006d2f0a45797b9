/**
 * The temp files of one call. They live in a private directory of the call (mkdtemp: mode 0700, inside
 * uploads.tempDir), made when the call's first file needs disk, each file mode 0600: no other user of the machine
 * can list or read an upload. Removing the call's directory removes every file it wrote, even one whose write
 * failed half-way, and leaves uploads.tempDir as it was; removing twice is harmless.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { WebhookError } from '../../core/errors.js';

/** Mode of every temp file: the directory already hides it, the mode keeps it private if it is moved out. */
export const TEMP_FILE_MODE = 0o600;

export function storeFailed(cause: unknown): WebhookError {
  return new WebhookError('INTERNAL_ERROR', 'Could not store an uploaded file.', { cause });
}

export class TempFiles {
  readonly #parent: string;
  #dir: Promise<string> | undefined;
  #removed = false;

  constructor(parent: string) {
    this.#parent = parent;
  }

  /** Whether a file was asked for: a call whose files all stayed in memory has nothing to remove. */
  get used(): boolean {
    return this.#dir !== undefined;
  }

  /** A new file name in the call's private directory (made on first use). */
  async next(): Promise<string> {
    if (this.#removed) throw storeFailed(new Error('The call\'s temp files were already removed.'));
    // Per call rather than per process: nothing to share between calls, nothing left behind in uploads.tempDir,
    // and a directory a tmp cleaner removed in the meantime only fails the call that was using it.
    this.#dir ??= mkdtemp(join(this.#parent, 'workflow-webhooks-'));
    try {
      return join(await this.#dir, randomUUID());
    } catch (error) {
      throw storeFailed(error);
    }
  }

  async removeAll(): Promise<void> {
    this.#removed = true;
    const dir = this.#dir;
    this.#dir = undefined;
    if (dir === undefined) return;
    const path = await dir.catch(() => undefined);
    if (path !== undefined) await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}
