/**
 * Job data at rest, encrypted with the host's key: the trigger item a job stores and the result it keeps are sealed
 * with AES-256-GCM before they reach Redis, and opened on the worker and the waiting web instance. Each sealed value
 * names the key it was sealed with, so keys rotate: new values are sealed with the current key, and every key still
 * listed opens older ones. The sealed value is bound to its job as additional data (the job id, and for a trigger
 * item the call, workflow, node and mode the job names beside it), so a Redis writer cannot move one job's sealed
 * item into another job, nor point a job at another workflow. The keys also key the HMAC of an idempotent call's
 * body fingerprint, so that a fingerprint kept in Redis gives nothing of a small body away.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

import type { SealedValue } from './sealed-value.js';

export type { SealedValue };

/** The `encryption` option of the queue, the worker and history. */
export interface JobEncryptionOptions {
  /** The id of the key new job data is sealed with; one of `keys`. */
  currentKeyId: string;
  /**
   * Keys by id: 32 bytes each, as a Buffer or as a string of 64 hex digits or base64. Keep a retired key listed
   * until the jobs sealed with it are gone (the idempotency window, the failed-job retention).
   */
  keys: Record<string, Buffer | string>;
}

export interface Keyring {
  readonly currentKeyId: string;
  readonly keys: ReadonlyMap<string, Buffer>;
}

const KEY_ID = /^[\w.-]{1,64}$/;

function keyBytes(id: string, value: unknown, owner: string): Buffer {
  let key: Buffer | undefined;
  if (Buffer.isBuffer(value)) key = Buffer.from(value);
  else if (typeof value === 'string' && /^[0-9a-f]{64}$/i.test(value)) key = Buffer.from(value, 'hex');
  else if (typeof value === 'string' && /^[A-Za-z0-9+/_-]{43}=?$/.test(value)) key = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  if (key?.length !== 32) {
    throw new TypeError(`${owner}: encryption key "${id}" must be 32 bytes: a Buffer, 64 hex digits or base64 (e.g. crypto.randomBytes(32).toString('base64')).`);
  }
  return key;
}

/** Checks an `encryption` option once, at its factory; `owner` names the option's owner in the refusals. */
export function resolveKeyring(options: JobEncryptionOptions | undefined, owner = 'workflow-webhooks/queue'): Keyring | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || typeof options.keys !== 'object' || options.keys === null) {
    throw new TypeError(`${owner}: option encryption is { currentKeyId, keys: { [id]: key } }.`);
  }
  const keys = new Map<string, Buffer>();
  for (const [id, value] of Object.entries(options.keys)) {
    if (!KEY_ID.test(id)) throw new TypeError(`${owner}: encryption key id "${id}" takes 1 to 64 letters, digits, _, . and - only.`);
    keys.set(id, keyBytes(id, value, owner));
  }
  if (!keys.has(options.currentKeyId)) {
    throw new TypeError(`${owner}: encryption.currentKeyId ${JSON.stringify(options.currentKeyId)} must name one of encryption.keys.`);
  }
  return { currentKeyId: options.currentKeyId, keys };
}

/** Seals a JSON value with the current key, bound to `context`. */
export function seal(keyring: Keyring, value: unknown, context: string): SealedValue {
  const key = keyring.keys.get(keyring.currentKeyId) as Buffer;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`workflow-webhooks:job:${keyring.currentKeyId}:${context}`));
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return { kid: keyring.currentKeyId, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

export function isSealed(value: unknown): value is SealedValue {
  const sealed = value as Partial<SealedValue> | null;
  return typeof sealed === 'object' && sealed !== null && typeof sealed.kid === 'string' && typeof sealed.iv === 'string'
    && typeof sealed.tag === 'string' && typeof sealed.data === 'string';
}

/** Opens a sealed value; throws, saying why, when no key listed opens it or it was changed. */
export function open<T>(keyring: Keyring | undefined, sealed: SealedValue, context: string): T {
  const key = keyring?.keys.get(sealed.kid);
  if (key === undefined) {
    throw new Error(`This job's data is encrypted with key "${sealed.kid}", which this process's encryption option does not list.`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(`workflow-webhooks:job:${sealed.kid}:${context}`));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const text = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`This job's encrypted data does not open with key "${sealed.kid}": it was changed, or belongs to another job.`, { cause: error });
  }
}

/** The additional data a job's trigger item is sealed under: the job and what it says of where the item runs. */
export function itemContext(jobId: string, job: { callId: string; workflowId: string; nodeName: string; mode: string }): string {
  return `item:${JSON.stringify([jobId, job.callId, job.workflowId, job.nodeName, job.mode])}`;
}

/** Per keyring: the key a body fingerprint's HMAC takes, derived from the current key (never the sealing key itself). */
const fingerprintKeys = new WeakMap<Keyring, { kid: string; key: Buffer }>();

export function fingerprintKey(keyring: Keyring): { kid: string; key: Buffer } {
  let derived = fingerprintKeys.get(keyring);
  if (derived === undefined) {
    const key = createHmac('sha256', keyring.keys.get(keyring.currentKeyId) as Buffer).update('workflow-webhooks:body-fingerprint').digest();
    derived = { kid: keyring.currentKeyId, key };
    fingerprintKeys.set(keyring, derived);
  }
  return derived;
}
