/**
 * The deployment's digest key as a shared store keeps it: every instance offers 32 random bytes as it loads and the
 * store keeps the first (Redis `SET NX`, PostgreSQL `INSERT … ON CONFLICT`), so every instance digests callers' rate
 * limit budgets under one key nobody had to configure, and a reader of the budgets alone cannot match them against
 * guessed addresses or header values.
 */
import { randomBytes } from 'node:crypto';
import { WebhookError } from '../../../core/errors.js';

/** As long as `rateLimit.digestKey` must be at least: the key of HMAC-SHA-256. */
const KEY_BYTES = 32;

/**
 * What an instance offers: the key it holds already, so that a store that came back empty keeps the deployment's key
 * (the instances still running digest under it), else a new one.
 */
export function offeredKey(held: Buffer | undefined): Buffer {
  return held ?? randomBytes(KEY_BYTES);
}

/** The key the store answered with, checked: a shorter one was not written by this library, and would be guessable. */
export function storedKey(value: Buffer, store: string, where: string): Buffer {
  if (value.length >= KEY_BYTES) return value;
  throw new WebhookError('REGISTRY_UNAVAILABLE', `The ${store} store's rate-limit digest key (${where}) is ${value.length} bytes long; it must be at least ${KEY_BYTES}.`, {
    hint: `Delete ${where}: the next instance to start writes a new random key, which every instance then reads.`,
  });
}
