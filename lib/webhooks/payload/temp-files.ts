/**
 * The temp files of one call. Every file a call writes is tracked here from the moment its name is chosen, so a
 * failed, aborted or finished call removes all of them, and removing twice is harmless.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

export class TempFiles {
  readonly #dir: string;
  readonly #paths = new Set<string>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** A new file name in the temp directory, tracked for removal. */
  next(): string {
    const path = join(this.#dir, `workflow-webhooks-${randomUUID()}`);
    this.#paths.add(path);
    return path;
  }

  async removeAll(): Promise<void> {
    const paths = [...this.#paths];
    this.#paths.clear();
    await Promise.all(paths.map((path) => rm(path, { force: true }).catch(() => undefined)));
  }
}
