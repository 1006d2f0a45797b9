/**
 * What a shared store keeps of the ids the request path hands it: the rate-limit stage's budget and scope ids are
 * digests already and are kept as they are; anything else (a host calling the registry itself, a sender's message id)
 * is hashed, so a caller's value never reaches the store and a long one makes a short key.
 */
import { createHash } from 'node:crypto';

/** A digest of any text, in base64url. */
export function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** An id as a key part: the stage's digests as they are; anything else hashed. */
export function keyPart(id: string): string {
  return /^[\w-]{1,64}$/.test(id) ? id : digestOf(id);
}
