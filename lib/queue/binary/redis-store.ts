/**
 * The Redis binary store: files inside Redis beside the job, each under its own key with an expiry (so a file whose
 * job was removed by other means still goes), size-limited because Redis holds them in memory.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { QueueCommands } from '../redis-route.js';
import type { BinarySource, BinaryStore, BinaryStoreHost, StoredBinary } from './store.js';

export interface RedisBinaryStoreOptions {
  /** Largest file it takes. Default 16 MiB; Redis keeps every byte in memory. */
  maxBytes?: number;
  /** How long a file stays at most, in milliseconds, if its job never ends. Default 8 days (past the failed jobs' retention). */
  ttlMs?: number;
}

const REF = /^[0-9a-f-]{36}$/;
/** RESP's bulk string type, read as a Buffer instead of text. */
const AS_BUFFER = { typeMapping: { [36]: Buffer } };

class RedisBinaryStore implements BinaryStore {
  readonly kind = 'redis';
  readonly maxBytes: number;
  readonly #ttlMs: number;
  #redis: { client: QueueCommands; key(id: string): string } | undefined;

  constructor(options: RedisBinaryStoreOptions) {
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.#ttlMs = options.ttlMs ?? 8 * 24 * 3600_000;
    if (!(this.maxBytes > 0) || !(this.#ttlMs > 0)) throw new TypeError('workflow-webhooks/queue: redisBinaryStore needs a positive maxBytes and ttlMs.');
  }

  /** A PostgreSQL queue refuses this store at its factory, so only Redis is ever attached. */
  attach(host: BinaryStoreHost): void {
    if (host.kind === 'redis') this.#redis ??= host;
  }

  get #connection(): { client: QueueCommands; key(id: string): string } {
    if (this.#redis === undefined) throw new Error('The Redis binary store is used by no queue or worker yet.');
    return this.#redis;
  }

  async put(source: BinarySource, bytes: number): Promise<string> {
    if (bytes > this.maxBytes) throw new RangeError(`A file of ${bytes} bytes is larger than the Redis binary store's maxBytes (${this.maxBytes}).`);
    const data = source.data ?? await readFile(source.path as string);
    const ref = randomUUID();
    const { client, key } = this.#connection;
    await client.sendCommand(['SET', key(ref), data, 'PX', String(this.#ttlMs)]);
    return ref;
  }

  async get(ref: string): Promise<StoredBinary> {
    const { client, key } = this.#connection;
    const data = REF.test(ref) ? await client.sendCommand(['GET', key(ref)], AS_BUFFER) : null;
    if (!Buffer.isBuffer(data)) throw new Error(`The binary ${ref} is no longer in the Redis binary store.`);
    return { data };
  }

  async remove(refs: readonly string[]): Promise<void> {
    const valid = refs.filter((ref) => REF.test(ref));
    if (valid.length === 0) return;
    const { client, key } = this.#connection;
    await client.sendCommand(['DEL', ...valid.map(key)]);
  }
}

/** Files kept in Redis, on the queue's own connection. */
export function redisBinaryStore(options: RedisBinaryStoreOptions = {}): BinaryStore {
  return new RedisBinaryStore(options);
}
