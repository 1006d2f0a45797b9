/**
 * How each sender signs its webhooks: which headers carry the signature, the timestamp and the message id, which
 * bytes are signed, with which HMAC, and how the secret becomes the key. Only reading is done here: a scheme turns
 * a call's headers into what `signature.ts` checks, and never decides whether the call passes.
 */
import type { IncomingMessage } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import { SIGNATURE_HEADERS as SENT, type SignatureScheme } from '../../core/types.js';

/** The credential of a node with `authentication: 'signatureAuth'`, returned by the host's `credentials` resolver. */
export interface SignatureAuthCredential {
  scheme: SignatureScheme;
  /** The signing secret; several during a rotation (a call signed with any of them passes). */
  secret: string | string[];
  /** How far a signed timestamp may be from now, either way, in seconds. Default 300 (five minutes). */
  toleranceSeconds?: number;
  /** `custom`: the header that carries the signature. */
  header?: string;
  /** `custom`: the HMAC's hash. Default sha256. */
  algorithm?: 'sha1' | 'sha256' | 'sha512';
  /** `custom`: how the signature is written. Default hex. */
  encoding?: 'hex' | 'base64';
  /** `custom`: text before the signature in its header, e.g. `sha256=`. */
  prefix?: string;
  /** `custom`: the header that carries the signed Unix time in seconds; then the timestamp tolerance applies. */
  timestampHeader?: string;
  /** `custom`: the signed bytes, with `{timestamp}` and `{body}`. Default `{body}`, or `{timestamp}.{body}` with a timestamp header. */
  signedContent?: string;
}

/** What a call's headers say about its signature, ready to be checked against the body. */
export interface SignatureClaim {
  scheme: SignatureScheme;
  /** The header a missing signature is named by, for the challenge and the message. */
  header: string;
  algorithm: 'sha1' | 'sha256' | 'sha512';
  /** The signatures the call offers (several: any one that matches passes). */
  signatures: Buffer[];
  /** Unix seconds the sender signed at, for schemes that sign one. */
  timestamp?: number;
  /** The sender's message id, for schemes that carry one (replay protection). */
  messageId?: string;
  /** The bytes the sender signed, given the body. */
  signedContent(body: Buffer): Buffer;
  /** The HMAC key of one secret. */
  keyOf(secret: string): Buffer;
}

/** The headers a scheme needs are not all there: 401, nothing was offered. */
export class MissingSignature extends Error {
  constructor(readonly header: string) {
    super(`The ${header} header is missing.`);
  }
}

const malformed = (what: string): WebhookError =>
  new WebhookError('SIGNATURE_INVALID', 'The webhook signature does not match.', { hint: `The ${what} is malformed.` });

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value.join(',') : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

function required(req: IncomingMessage, name: string): string {
  const value = header(req, name);
  if (value === undefined) throw new MissingSignature(name.toLowerCase());
  return value;
}

const HEX = /^[0-9a-f]+$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function decode(text: string, encoding: 'hex' | 'base64', what: string): Buffer {
  const ok = encoding === 'hex' ? HEX.test(text) && text.length % 2 === 0 : BASE64.test(text) && text.length % 4 === 0;
  if (!ok) throw malformed(what);
  return Buffer.from(text, encoding);
}

function unixSeconds(text: string, what: string): number {
  if (!/^\d{1,16}$/.test(text)) throw malformed(what);
  const value = Number(text);
  // A sender that writes milliseconds (13 digits) is read as such rather than refused as far in the future.
  return value > 1e11 ? Math.floor(value / 1000) : value;
}

const utf8Key = (secret: string): Buffer => Buffer.from(secret, 'utf8');
const joined = (...parts: (string | Buffer)[]): Buffer => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));

/** Standard Webhooks: `whsec_` then the base64 of the key (the prefix is optional). */
function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!BASE64.test(encoded)) throw new WebhookError('AUTH_NOT_CONFIGURED', 'A Standard Webhooks secret is whsec_ followed by base64.');
  return Buffer.from(encoded, 'base64');
}

function standardWebhooks(req: IncomingMessage): SignatureClaim {
  const sent = SENT.standardWebhooks;
  const id = required(req, sent.id);
  const timestamp = required(req, sent.timestamp);
  const list = required(req, sent.signature);
  // Space-separated `v1,<base64>` entries; other versions (v1a: asymmetric) are not ours to check.
  const signatures = list.split(/\s+/).filter((entry) => entry.startsWith('v1,')).map((entry) => decode(entry.slice(3), 'base64', `${sent.signature} header`));
  if (signatures.length === 0) throw malformed(`${sent.signature} header`);
  return {
    scheme: 'standardWebhooks', header: sent.signature, algorithm: 'sha256', signatures,
    timestamp: unixSeconds(timestamp, `${sent.timestamp} header`), messageId: id,
    signedContent: (body) => joined(`${id}.${timestamp}.`, body),
    keyOf: standardKey,
  };
}

function github(req: IncomingMessage): SignatureClaim {
  const value = required(req, SENT.github.signature);
  if (!value.startsWith('sha256=')) throw malformed(`${SENT.github.signature} header`);
  return {
    scheme: 'github', header: SENT.github.signature.toLowerCase(), algorithm: 'sha256',
    signatures: [decode(value.slice(7), 'hex', `${SENT.github.signature} header`)],
    signedContent: (body) => body, keyOf: utf8Key,
  };
}

function stripe(req: IncomingMessage): SignatureClaim {
  const value = required(req, SENT.stripe.signature);
  const pairs = value.split(',').map((pair) => pair.trim().split('=') as [string, string | undefined]);
  const t = pairs.find(([key]) => key === 't')?.[1];
  const signatures = pairs.filter(([key]) => key === 'v1').map(([, text]) => decode(text ?? '', 'hex', `${SENT.stripe.signature} header`));
  if (t === undefined || signatures.length === 0) throw malformed(`${SENT.stripe.signature} header`);
  return {
    scheme: 'stripe', header: SENT.stripe.signature.toLowerCase(), algorithm: 'sha256', signatures,
    timestamp: unixSeconds(t, `${SENT.stripe.signature} timestamp`),
    signedContent: (body) => joined(`${t}.`, body), keyOf: utf8Key,
  };
}

function slack(req: IncomingMessage): SignatureClaim {
  const value = required(req, SENT.slack.signature);
  const timestamp = required(req, SENT.slack.timestamp);
  if (!value.startsWith('v0=')) throw malformed(`${SENT.slack.signature} header`);
  return {
    scheme: 'slack', header: SENT.slack.signature.toLowerCase(), algorithm: 'sha256',
    signatures: [decode(value.slice(3), 'hex', `${SENT.slack.signature} header`)],
    timestamp: unixSeconds(timestamp, `${SENT.slack.timestamp} header`),
    signedContent: (body) => joined(`v0:${timestamp}:`, body), keyOf: utf8Key,
  };
}

function shopify(req: IncomingMessage): SignatureClaim {
  return {
    scheme: 'shopify', header: SENT.shopify.signature.toLowerCase(), algorithm: 'sha256',
    signatures: [decode(required(req, SENT.shopify.signature), 'base64', `${SENT.shopify.signature} header`)],
    signedContent: (body) => body, keyOf: utf8Key,
  };
}

/** The signed bytes of a custom template: its text around `{timestamp}` and `{body}`, the body as received. */
function templateContent(template: string, timestamp: string | undefined): (body: Buffer) => Buffer {
  const parts = template.split('{body}');
  const fill = (text: string): string => text.replaceAll('{timestamp}', timestamp ?? '');
  return (body) => joined(...parts.flatMap((part, index) => (index === 0 ? [fill(part)] : [body, fill(part)])));
}

function custom(req: IncomingMessage, credential: SignatureAuthCredential): SignatureClaim {
  const name = (credential.header ?? '').toLowerCase();
  const value = required(req, name);
  const prefix = credential.prefix ?? '';
  if (!value.startsWith(prefix)) throw malformed(`${name} header`);
  const timestamp = credential.timestampHeader === undefined ? undefined : required(req, credential.timestampHeader);
  const template = credential.signedContent ?? (timestamp === undefined ? '{body}' : '{timestamp}.{body}');
  const claim: SignatureClaim = {
    scheme: 'custom', header: name, algorithm: credential.algorithm ?? 'sha256',
    signatures: [decode(value.slice(prefix.length), credential.encoding ?? 'hex', `${name} header`)],
    signedContent: templateContent(template, timestamp), keyOf: utf8Key,
  };
  if (timestamp !== undefined) claim.timestamp = unixSeconds(timestamp, `${credential.timestampHeader} header`);
  return claim;
}

/** Reads the call's signature headers as the credential's scheme says; throws MissingSignature or SIGNATURE_INVALID. */
export function readSignatureClaim(req: IncomingMessage, credential: SignatureAuthCredential): SignatureClaim {
  switch (credential.scheme) {
    case 'standardWebhooks': return standardWebhooks(req);
    case 'github': return github(req);
    case 'stripe': return stripe(req);
    case 'slack': return slack(req);
    case 'shopify': return shopify(req);
    case 'custom': return custom(req, credential);
  }
}
