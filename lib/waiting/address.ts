/**
 * Resume addresses: `<mount>/<waitingPrefix>/<waitId>[/<suffix>]?signature=<hmac>`. The id is 128 random bits; the
 * signature is HMAC-SHA256 of the id under the middleware's `waitingSecret`, compared in constant time, so an
 * address cannot be guessed, and one read out of the store cannot be called without the secret.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const WAIT_ID = /^[A-Za-z0-9_-]{22}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
/** A suffix is one or more URL-safe path segments. */
export const SUFFIX = /^[\w.~-]+(\/[\w.~-]+)*$/;

export function newWaitId(): string {
  return randomBytes(16).toString('base64url');
}

export function isWaitId(value: string): boolean {
  return WAIT_ID.test(value);
}

export function signWait(secret: Buffer, waitId: string): string {
  return createHmac('sha256', secret).update(`workflow-webhooks:wait:${waitId}`).digest('base64url');
}

/** Whether `given` is the id's signature; in constant time once it has a signature's shape. */
export function verifyWait(secret: Buffer, waitId: string, given: string | undefined): boolean {
  if (given === undefined || !SIGNATURE.test(given)) return false;
  return timingSafeEqual(Buffer.from(signWait(secret, waitId)), Buffer.from(given));
}

/** The id and suffix of a waiting path (after the prefix, still percent-encoded); undefined when it has no id. */
export function readWaitingPath(rawPath: string): { waitId: string; suffix: string } | undefined {
  const path = rawPath.replace(/\/+$/, '');
  const slash = path.indexOf('/');
  const waitId = slash === -1 ? path : path.slice(0, slash);
  if (!isWaitId(waitId)) return undefined;
  let suffix = slash === -1 ? '' : path.slice(slash + 1);
  try {
    suffix = decodeURIComponent(suffix);
  } catch {
    return undefined;
  }
  return { waitId, suffix };
}

/** The one `signature` query parameter; undefined when there is none, or several. */
export function signatureParameter(search: string): string | undefined {
  if (search === '') return undefined;
  const values = new URLSearchParams(search).getAll('signature');
  return values.length === 1 ? values[0] : undefined;
}

/** The address without its signature (the trigger item's `webhookUrl`). */
export function waitingPath(prefix: string, waitId: string, suffix: string): string {
  return suffix === '' ? `${prefix}/${waitId}` : `${prefix}/${waitId}/${suffix}`;
}
