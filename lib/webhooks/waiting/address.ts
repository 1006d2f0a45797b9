/**
 * Resume addresses: `<mount>/<waitingPrefix>/<waitId>[/<suffix>]?signature=<hmac>`. The id is 128 random bits; the
 * signature is HMAC-SHA256 of the id and the suffix together under the middleware's `waitingSecret`, compared in
 * constant time, so an address cannot be guessed, one read out of the store cannot be called without the secret, and
 * one handed to a person for one step of a run (`…/manager`) opens no other step of it (`…/finance`).
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

/**
 * The signature of one address: id and suffix (as the server reads it, percent-decoded) in a JSON array, so no two
 * pairs sign the same bytes whatever a suffix holds, after a label of their own, so no other HMAC under the same
 * secret (the ids-only signatures of earlier versions included) is ever a valid resume signature.
 */
export function signWait(secret: Buffer, waitId: string, suffix: string): string {
  return createHmac('sha256', secret).update(JSON.stringify(['workflow-webhooks resume address v2', waitId, suffix])).digest('base64url');
}

/** Whether `given` is the signature of this id with this suffix; in constant time once it has a signature's shape. */
export function verifyWait(secret: Buffer, waitId: string, suffix: string, given: string | undefined): boolean {
  if (given === undefined || !SIGNATURE.test(given)) return false;
  return timingSafeEqual(Buffer.from(signWait(secret, waitId, suffix)), Buffer.from(given));
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

/**
 * The query string of a resume call without its `signature` parameters (named as URLSearchParams reads names, the
 * way the signature was found): the resumed run gets the caller's other parameters, never a key that a workflow
 * logging or forwarding its item would hand on. A query without one is returned as it is.
 */
export function withoutSignature(search: string): string {
  if (search === '') return search;
  return search.split('&').filter((pair) => new URLSearchParams(pair).keys().next().value !== 'signature').join('&');
}

/** The address without its signature (the trigger item's `webhookUrl`). */
export function waitingPath(prefix: string, waitId: string, suffix: string): string {
  return suffix === '' ? `${prefix}/${waitId}` : `${prefix}/${waitId}/${suffix}`;
}
