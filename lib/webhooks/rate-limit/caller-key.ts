/**
 * Which budget of a policy a call spends from: the address's own, or the caller's (its address, the caller the node's
 * guard verified, or a header's value), as a digest. The caller's value is never kept or sent anywhere: a header key
 * may be an API key, and a caller address is personal data, so only a truncated digest of it reaches the store,
 * bound to the address and policy: an HMAC under the deployment's digest key when one is configured, since an
 * unkeyed SHA-256 of an IPv4 address is undone by trying all 2^32 of them (seconds). A header is counted by what it
 * means, not by how it is spelt: the header the guard checked by the caller it verified (the Basic user, the JWT's
 * subject), any other by its normalised value.
 */
import { createHmac, hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { VerifiedCaller } from '../guards/authenticate.js';
import { clientAddress } from '../guards/client-address.js';

/** 22 base64url characters: 132 bits, short keys for Redis, no collision to fear. One-shot `hash()`: a quarter of createHash()'s time. */
export function digest(...parts: string[]): string {
  return hash('sha256', `${parts.join('\u0000')}\u0000`, 'base64url').slice(0, 22);
}

/** A digest of budget names: `digest`, or `keyedDigest(key)`. */
export type Digest = (...parts: string[]) => string;

/**
 * The digest under a key (HMAC-SHA-256, truncated as `digest`): what a reader of the store sees cannot be matched
 * against guessed addresses or header values without the key. Every instance must use the same key, or their counts
 * of one caller split.
 */
export function keyedDigest(key: Buffer): Digest {
  return (...parts) => createHmac('sha256', key).update(`${parts.join('\u0000')}\u0000`).digest('base64url').slice(0, 22);
}

/**
 * The caller's address as one budget: IPv4-mapped IPv6 as IPv4 (one caller, whichever stack it came in on), and IPv6
 * by its first `ipv6Prefix` bits, since one subscriber holds a /64 or a /56 and could otherwise change address per call.
 */
export function ipKeyOf(address: string, ipv6Prefix: number): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1] as string;
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address);
  if (groups === undefined) return address.toLowerCase();
  const kept = groups.map((group, index) => {
    const bits = ipv6Prefix - index * 16;
    return bits >= 16 ? group : bits <= 0 ? 0 : group & (0xffff << (16 - bits)) & 0xffff;
  });
  return `${kept.map((group) => group.toString(16)).join(':')}/${ipv6Prefix}`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a zone dropped, an IPv4 tail as two groups). */
function ipv6Groups(text: string): number[] | undefined {
  let address = (text.split('%')[0] as string).toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (tail !== null) {
    const bytes = tail.slice(1).map(Number);
    if (bytes.some((byte) => byte > 255)) return undefined;
    const [a, b, c, d] = bytes as [number, number, number, number];
    address = `${address.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' ? [] : (halves[0] as string).split(':');
  const rest = halves.length === 1 || halves[1] === '' ? [] : (halves[1] as string).split(':');
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  if (fill < 0 || head.length + fill + rest.length !== 8) return undefined;
  const groups = [...head, ...Array.from({ length: fill }, () => '0'), ...rest];
  return groups.every((group) => /^[0-9a-f]{1,4}$/.test(group)) ? groups.map((group) => parseInt(group, 16)) : undefined;
}

export interface CallerKeySettings {
  proxyHops: number;
  ipv6Prefix: number;
  /** How budget names are digested; default the unkeyed `digest`. */
  digest?: Digest;
}

/** Credentials a guard reads in a scheme it names case-insensitively, with any run of spaces after it (RFC 9110 11.4). */
const AUTHORIZATION = new Set(['authorization', 'proxy-authorization']);

/**
 * A header's value as one caller's, however it is spelt: for `authorization` (a header no guard checked) the scheme in
 * lower case, and Basic credentials by the bytes they decode to (padding and spacing aside); other headers as sent.
 */
export function normalisedValue(name: string, text: string): string {
  const value = text.trim();
  if (!AUTHORIZATION.has(name)) return value;
  const parts = /^(\S+)\s+(.*)$/s.exec(value);
  if (parts === null) return value.toLowerCase();
  const scheme = (parts[1] as string).toLowerCase();
  const credentials = (parts[2] as string).trim();
  return scheme === 'basic' ? `basic ${Buffer.from(credentials, 'base64').toString('base64')}` : `${scheme} ${credentials}`;
}

/**
 * The budget of a per-caller policy: by the caller's address; by the caller the node's guard verified, when the key
 * is the header it checked (a made-up value never gets here: the guard refused it); or by a header's normalised
 * value. A call without the header (or with it empty) spends from one budget that every such call shares, so leaving
 * the header out gains nothing.
 */
export function callerBudget(scope: string, key: string, req: IncomingMessage, settings: CallerKeySettings, verified: VerifiedCaller | undefined): string {
  const digestOf = settings.digest ?? digest;
  if (key === 'ip') return digestOf(scope, 'ip', ipKeyOf(clientAddress(req, settings.proxyHops), settings.ipv6Prefix));
  if (verified !== undefined && verified.checkedHeader === key) return digestOf(scope, 'caller', verified.caller);
  const value = req.headers[key];
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined || text.trim() === '' ? digestOf(scope, 'without') : digestOf(scope, 'header', normalisedValue(key, text));
}
