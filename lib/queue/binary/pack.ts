/**
 * Items as plain JSON for a job or a result: binary data inline as base64 while the whole stays within
 * `inlineBytes`, else every file through the binary store. Everything is checked before anything is stored, so a
 * refusal never leaves half a payload behind.
 */
import { readFile, stat } from 'node:fs/promises';
import { WebhookError } from '../../core/errors.js';
import type { BinaryData, Item } from '../../core/types.js';
import type { BinaryStore } from './store.js';

/** A binary entry in job data: its metadata, and its bytes inline (`base64`) or a store reference (`stored`). */
export type PackedBinary = Omit<BinaryData, 'data' | 'path'> & ({ base64: string } | { stored: string; store: string });

export interface PackedItem {
  json: Record<string, unknown>;
  binary?: Record<string, PackedBinary>;
}

export interface PackLimits {
  inlineBytes: number;
  store: BinaryStore | undefined;
}

export interface Packed {
  items: PackedItem[];
  /** Store references written, for removal when the job or result is done with. */
  refs: string[];
}

function sizeOf(entry: BinaryData): Promise<number> {
  if (entry.data !== undefined) return Promise.resolve(entry.data.length);
  if (entry.path !== undefined) return stat(entry.path).then((info) => info.size);
  return Promise.resolve(0);
}

/** Sets a key as an own property whatever its name: a file field may be called `__proto__`. */
function put<T>(target: Record<string, T>, name: string, value: T): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

function metadataOf(entry: BinaryData): Omit<BinaryData, 'data' | 'path'> {
  const { data: _data, path: _path, ...metadata } = entry;
  return metadata;
}

function tooLarge(total: number, limits: PackLimits, largest: number): WebhookError {
  const store = limits.store;
  const message = store === undefined
    ? `The call's files add up to ${total} bytes, more than inlineBinaryBytes (${limits.inlineBytes}) allows inside a job, and no binary store is configured.`
    : `A file of ${largest} bytes is larger than the ${store.kind} binary store's maxBytes (${store.maxBytes}).`;
  return new WebhookError('QUEUE_PAYLOAD_TOO_LARGE', message, {
    hint: store === undefined
      ? 'Configure binaryStore (redisBinaryStore() or directoryBinaryStore({ directory })) on the queue and its workers, or raise inlineBinaryBytes.'
      : 'Send a smaller file, or raise the store\'s maxBytes.',
  });
}

/**
 * The bytes of the items' files that will go through the binary store (none when they fit inline or no store is set),
 * from their metadata, before anything is read: what a deadline scaled to the files' size is measured by.
 */
export function storeBytesOf(items: readonly Item[], limits: PackLimits): number {
  let total = 0;
  for (const item of items) {
    for (const entry of Object.values(item.binary ?? {})) total += entry.data?.length ?? entry.bytes ?? 0;
  }
  return limits.store === undefined || total <= limits.inlineBytes ? 0 : total;
}

/** Packs items; `strict` false (a result nobody waits for) keeps only metadata of files that do not fit inline. */
export async function packItems(items: readonly Item[], limits: PackLimits, strict = true): Promise<Packed> {
  const entries: { entry: BinaryData; bytes: number }[] = [];
  for (const item of items) {
    for (const entry of Object.values(item.binary ?? {})) entries.push({ entry, bytes: await sizeOf(entry) });
  }
  const total = entries.reduce((sum, { bytes }) => sum + bytes, 0);
  const inline = total <= limits.inlineBytes;
  const largest = entries.reduce((most, { bytes }) => Math.max(most, bytes), 0);
  const store = inline || !strict ? undefined : limits.store;
  if (!inline && strict && (store === undefined || largest > store.maxBytes)) throw tooLarge(total, limits, largest);
  const refs: string[] = [];
  try {
    const packed: PackedItem[] = [];
    for (const item of items) packed.push(await packItem(item, inline, store, refs));
    return { items: packed, refs };
  } catch (error) {
    await store?.remove(refs).catch(() => undefined);
    throw error;
  }
}

async function packItem(item: Item, inline: boolean, store: BinaryStore | undefined, refs: string[]): Promise<PackedItem> {
  if (item.binary === undefined) return { json: item.json };
  const binary: Record<string, PackedBinary> = {};
  for (const [name, entry] of Object.entries(item.binary)) {
    const metadata = metadataOf(entry);
    if (inline) {
      const data = entry.data ?? (entry.path === undefined ? Buffer.alloc(0) : await readFile(entry.path));
      put(binary, name, { ...metadata, base64: data.toString('base64') });
    } else if (store !== undefined) {
      const ref = await store.put({ data: entry.data, path: entry.path }, await sizeOf(entry));
      refs.push(ref);
      put(binary, name, { ...metadata, stored: ref, store: store.kind });
    } else {
      put(binary, name, { ...metadata, base64: '' });
    }
  }
  return { json: item.json, binary };
}

/** The items back, bytes in `data`, or in `path` where the store hands out files (`inMemory` reads those too). */
export async function unpackItems(items: readonly PackedItem[], store: BinaryStore | undefined, inMemory = false): Promise<Item[]> {
  const unpacked: Item[] = [];
  for (const item of items) {
    if (item.binary === undefined) {
      unpacked.push({ json: item.json });
      continue;
    }
    const binary: Record<string, BinaryData> = {};
    for (const [name, packed] of Object.entries(item.binary)) put(binary, name, await unpackBinary(packed, store, inMemory));
    unpacked.push({ json: item.json, binary });
  }
  return unpacked;
}

async function unpackBinary(packed: PackedBinary, store: BinaryStore | undefined, inMemory: boolean): Promise<BinaryData> {
  if ('base64' in packed) {
    const { base64, ...metadata } = packed;
    return { ...metadata, data: Buffer.from(base64, 'base64') };
  }
  const { stored, store: kind, ...metadata } = packed;
  if (store === undefined || store.kind !== kind) {
    throw new Error(`A file of this job is in the ${kind} binary store, but this side has ${store === undefined ? 'none' : `the ${store.kind} store`} configured.`);
  }
  const found = await store.get(stored);
  if ('data' in found) return { ...metadata, data: found.data };
  return inMemory ? { ...metadata, data: await readFile(found.path) } : { ...metadata, path: found.path };
}

/** The store references of packed items. */
export function storedRefs(items: readonly PackedItem[]): string[] {
  const refs: string[] = [];
  for (const item of items) {
    for (const packed of Object.values(item.binary ?? {})) if ('stored' in packed) refs.push(packed.stored);
  }
  return refs;
}
