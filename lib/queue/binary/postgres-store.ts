/**
 * The PostgreSQL binary store: files in the queue's database, in the library's schema, written in rows of 256 KiB
 * as they are read from their file (so memory stays bounded however large the file), each row and the file's entry
 * with an expiry, so a file whose job was removed by other means still goes. A file is listed only once all its rows
 * are in, so a reader finds it whole or not at all.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { BinarySource, BinaryStore, BinaryStoreHost, PostgresBinaryHost, StoredBinary } from './store.js';

export interface PostgresBinaryStoreOptions {
  /** Largest file it takes. Default 64 MiB. */
  maxBytes?: number;
  /** How long a file stays at most, in milliseconds, if its job never ends. Default 8 days (past the failed jobs' retention). */
  ttlMs?: number;
}

/** One row's bytes: small enough for a statement's deadline, large enough to keep statements few. */
export const CHUNK_BYTES = 256 * 1024;
/** Rows read back per statement. */
const CHUNKS_PER_READ = 16;
const REF = /^[0-9a-f-]{36}$/;

async function* chunksOf(source: BinarySource): AsyncGenerator<Buffer> {
  if (source.data !== undefined) {
    for (let at = 0; at < source.data.length; at += CHUNK_BYTES) yield source.data.subarray(at, at + CHUNK_BYTES);
    return;
  }
  const stream = createReadStream(source.path as string, { highWaterMark: CHUNK_BYTES });
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } finally {
    stream.destroy();
  }
}

class PostgresBinaryStore implements BinaryStore {
  readonly kind = 'postgres';
  readonly maxBytes: number;
  readonly #ttlMs: number;
  #host: PostgresBinaryHost | undefined;

  constructor(options: PostgresBinaryStoreOptions) {
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#ttlMs = options.ttlMs ?? 8 * 24 * 3600_000;
    if (!(this.maxBytes > 0) || !(this.#ttlMs > 0)) throw new TypeError('workflow-webhooks/queue: postgresBinaryStore needs a positive maxBytes and ttlMs.');
  }

  /** A Redis queue refuses this store at its factory, so only PostgreSQL is ever attached. */
  attach(host: BinaryStoreHost): void {
    if (host.kind === 'postgres') this.#host ??= host;
  }

  get #db(): PostgresBinaryHost {
    if (this.#host === undefined) throw new Error('The PostgreSQL binary store is used by no queue or worker yet.');
    return this.#host;
  }

  async put(source: BinarySource, bytes: number): Promise<string> {
    if (bytes > this.maxBytes) throw new RangeError(`A file of ${bytes} bytes is larger than the PostgreSQL binary store's maxBytes (${this.maxBytes}).`);
    const { query, schema, queue } = this.#db;
    const ref = randomUUID();
    const expiresAt = Date.now() + this.#ttlMs;
    let chunk = 0;
    let written = 0;
    try {
      for await (const data of chunksOf(source)) {
        written += data.length;
        if (written > this.maxBytes) throw new RangeError(`The file grew past the PostgreSQL binary store's maxBytes (${this.maxBytes}).`);
        await query(`INSERT INTO ${schema}.queue_file_chunks VALUES ($1, $2, $3, $4, $5)`, [queue, ref, chunk, data, expiresAt]);
        chunk += 1;
      }
      await query(`INSERT INTO ${schema}.queue_files VALUES ($1, $2, $3, $4)`, [queue, ref, written, expiresAt]);
      return ref;
    } catch (error) {
      // What was written of a file that failed is removed now, or by its expiry.
      await this.remove([ref]).catch(() => undefined);
      throw error;
    }
  }

  async get(ref: string): Promise<StoredBinary> {
    const { query, schema, queue } = this.#db;
    const listed = REF.test(ref) ? await query(`SELECT bytes FROM ${schema}.queue_files WHERE scope = $1 AND file_id = $2`, [queue, ref]) : undefined;
    const size = listed?.rows[0]?.bytes;
    if (size === undefined) throw new Error(`The binary ${ref} is no longer in the PostgreSQL binary store.`);
    const parts: Buffer[] = [];
    let read = 0;
    for (let from = 0; ; from += CHUNKS_PER_READ) {
      const rows = (await query(`SELECT data FROM ${schema}.queue_file_chunks WHERE scope = $1 AND file_id = $2 AND chunk >= $3 AND chunk < $4 ORDER BY chunk`,
        [queue, ref, from, from + CHUNKS_PER_READ])).rows;
      for (const row of rows) {
        parts.push(row.data as Buffer);
        read += (row.data as Buffer).length;
      }
      if (rows.length < CHUNKS_PER_READ) break;
    }
    if (read !== Number(size)) throw new Error(`The binary ${ref} is no longer whole in the PostgreSQL binary store.`);
    return { data: Buffer.concat(parts, read) };
  }

  async remove(refs: readonly string[]): Promise<void> {
    const valid = refs.filter((ref) => REF.test(ref));
    if (valid.length === 0) return;
    const { query, schema, queue } = this.#db;
    await query(`WITH files AS (DELETE FROM ${schema}.queue_files WHERE scope = $1 AND file_id = ANY ($2))
      DELETE FROM ${schema}.queue_file_chunks WHERE scope = $1 AND file_id = ANY ($2)`, [queue, valid]);
  }
}

/** Files kept in the queue's PostgreSQL database, through the queue's own pool. */
export function postgresBinaryStore(options: PostgresBinaryStoreOptions = {}): BinaryStore {
  return new PostgresBinaryStore(options);
}
