/**
 * The shared-directory binary store: files copied into a directory every worker can read (one host, or a shared
 * volume). Workers get the file's path, so a large upload is never held in memory on either side.
 */
import { randomUUID } from 'node:crypto';
import { access, copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BinarySource, BinaryStore, StoredBinary } from './store.js';

export interface DirectoryBinaryStoreOptions {
  /** The shared directory; made when missing. */
  directory: string;
  /** Largest file it takes. Default: no limit. */
  maxBytes?: number;
}

const REF = /^[0-9a-f-]{36}$/;

class DirectoryBinaryStore implements BinaryStore {
  readonly kind = 'directory';
  readonly maxBytes: number;
  readonly #directory: string;
  #made: Promise<unknown> | undefined;

  constructor(options: DirectoryBinaryStoreOptions) {
    if (typeof options?.directory !== 'string' || options.directory === '') {
      throw new TypeError('workflow-webhooks/queue: directoryBinaryStore needs { directory }, a folder every worker can read.');
    }
    this.#directory = resolve(options.directory);
    this.maxBytes = options.maxBytes ?? Infinity;
  }

  #pathOf(ref: string): string {
    // A reference comes from job data: only our own names, never a path that leaves the directory.
    if (!REF.test(ref)) throw new Error(`"${ref}" is not a reference of the directory binary store.`);
    return join(this.#directory, ref);
  }

  async put(source: BinarySource, bytes: number): Promise<string> {
    if (bytes > this.maxBytes) throw new RangeError(`A file of ${bytes} bytes is larger than the directory binary store's maxBytes (${this.maxBytes}).`);
    this.#made ??= mkdir(this.#directory, { recursive: true });
    await this.#made;
    const ref = randomUUID();
    const target = this.#pathOf(ref);
    // Written under a temporary name first: a reader never sees half a file.
    const partial = `${target}.partial`;
    try {
      if (source.data !== undefined) await writeFile(partial, source.data);
      else await copyFile(source.path as string, partial);
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return ref;
  }

  async get(ref: string): Promise<StoredBinary> {
    const path = this.#pathOf(ref);
    await access(path).catch((error: unknown) => {
      throw new Error(`The binary ${ref} is no longer in the directory binary store.`, { cause: error });
    });
    return { path };
  }

  async remove(refs: readonly string[]): Promise<void> {
    await Promise.all(refs.filter((ref) => REF.test(ref)).map((ref) => rm(this.#pathOf(ref), { force: true })));
  }
}

/** Files in a directory shared by the web instances and the workers. */
export function directoryBinaryStore(options: DirectoryBinaryStoreOptions): BinaryStore {
  return new DirectoryBinaryStore(options);
}
