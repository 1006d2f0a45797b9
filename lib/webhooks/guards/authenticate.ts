/**
 * The Webhook node's `authentication`: basic auth and header auth compared in constant time, JWT verified with
 * jose (the algorithms are the credential's, `none` never accepted, expiry checked), signed webhooks by their
 * sender's scheme (`signature.ts`). Credentials come from the
 * host's resolver (middleware option `credentials`). Missing credentials: 401 with a `WWW-Authenticate` challenge
 * (Basic, Bearer); wrong ones: 403. Header auth has no challenge to offer, so a missing header is 403 too, as the
 * known platform answers: every 401 carries a challenge (RFC 9110).
 */
import { createHash, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { JWTPayload } from 'jose';
import { WebhookError } from '../../core/errors.js';
import type { Authentication } from '../../core/types.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import type { ReplayMemory } from '../registry/message-ids.js';
import { checkedHeaderOf } from './secrets.js';
import { checkSignature, type PendingSignature } from './signature.js';
import type { SignatureAuthCredential } from './signature-schemes.js';

export type { SignatureAuthCredential };

export interface BasicAuthCredential { user: string; password: string }
export interface HeaderAuthCredential { name: string; value: string }
export interface JwtAuthCredential {
  /** `passphrase`: an HMAC secret; `pemKey`: a public key (SPKI PEM) or certificate (X.509 PEM). */
  keyType: 'passphrase' | 'pemKey';
  secret?: string;
  publicKey?: string;
  /** The algorithm(s) tokens must be signed with. Default HS256 for a passphrase, RS256 for a key. */
  algorithm?: string | string[];
}
export type WebhookCredential = BasicAuthCredential | HeaderAuthCredential | JwtAuthCredential | SignatureAuthCredential;

/**
 * What authentication hands on: a JWT's verified payload, or a signed call's pending check of its body; the header it
 * checked (lower case), whose value is not stored beyond the call nor shown; and `caller`, who the guard verified, as
 * text that holds no secret (the Basic user, the JWT's issuer and subject, the node's one header or signature
 * credential). Whatever counts or scopes by the caller (a rate limit keyed by the checked header, an idempotency key)
 * reads `caller`, never the header, which one caller can spell many ways and which holds the secret.
 */
export type AuthOutcome = ({ jwtPayload: JWTPayload } | { signature: PendingSignature } | object) & VerifiedCaller | undefined;

export interface VerifiedCaller {
  checkedHeader: string | undefined;
  caller: string;
}

/**
 * A JWT's caller: its issuer and subject; a token without a subject by a digest of its verified claims (tokens with
 * the same claims are one caller, and only the key's holder can make new ones).
 */
function jwtCaller(payload: JWTPayload): string {
  if (typeof payload.sub === 'string') return `jwt:${JSON.stringify([payload.iss ?? null, payload.sub])}`;
  return `jwt-claims:${createHash('sha256').update(JSON.stringify(payload)).digest('base64url')}`;
}

export interface CredentialRequest {
  workflowId: string;
  nodeName: string;
  authentication: Exclude<Authentication, 'none'>;
  /** What the node stores about its credential (e.g. `{ id, name }`), passed through untouched. */
  credentials: unknown;
}

export type CredentialResolver = (request: CredentialRequest) => WebhookCredential | undefined | Promise<WebhookCredential | undefined>;

/** Equal-length digests make the comparison constant-time whatever the lengths of the inputs. */
function same(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

const required = (challenge: string): WebhookError =>
  new WebhookError('AUTH_REQUIRED', 'Authorization is required.', { headers: { 'www-authenticate': challenge } });
const unusable = (what: string): WebhookError => new WebhookError('AUTH_NOT_CONFIGURED', `The ${what} credential is incomplete.`);
const wrong = (): WebhookError => new WebhookError('AUTH_INVALID', 'Authorization data is wrong!');

const BASIC_CHALLENGE = 'Basic realm="Webhook", charset="UTF-8"';

/** Resolves the user, the one part of the credential that names the caller without being secret. */
function checkBasic(req: IncomingMessage, credential: BasicAuthCredential): string {
  if (typeof credential.user !== 'string' || typeof credential.password !== 'string') throw unusable('basic auth');
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match === null) throw required(BASIC_CHALLENGE);
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // RFC 7617 joins user and password with a colon; without one the call carries no credentials (as n8n answers).
  if (colon === -1) throw required(BASIC_CHALLENGE);
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  // Both compared, always: no early return that would tell which one was wrong, or when.
  const ok = [same(user, credential.user), same(password, credential.password)];
  if (!ok.every(Boolean)) throw wrong();
  return user;
}

function checkHeader(req: IncomingMessage, credential: HeaderAuthCredential): void {
  if (typeof credential.name !== 'string' || credential.name === '' || typeof credential.value !== 'string') throw unusable('header auth');
  const given = req.headers[credential.name.toLowerCase()];
  if (given === undefined) {
    throw new WebhookError('AUTH_INVALID', 'Authorization data is wrong!', { hint: `The call must carry the header ${credential.name}.` });
  }
  if (!same(Array.isArray(given) ? given.join(', ') : given, credential.value)) throw wrong();
}

type Jose = typeof import('jose');
/** What jose's importers give: a WebCrypto key, whose type needs the DOM lib; kept opaque here. */
type CryptoKeyLike = Awaited<ReturnType<Jose['importSPKI']>>;

// jose is loaded by the first JWT call: a host whose nodes never use jwtAuth never pays for it, and the module,
// once here, is read from this variable without another await.
let jose: Jose | undefined;
async function loadJose(): Promise<Jose> {
  jose ??= await import('jose');
  return jose;
}

const keyCache = new WeakMap<JwtAuthCredential, Promise<KeyObject | CryptoKeyLike | Uint8Array>>();

function algorithmsOf(credential: JwtAuthCredential): string[] {
  const given = credential.algorithm ?? (credential.keyType === 'passphrase' ? 'HS256' : 'RS256');
  const list = Array.isArray(given) ? given : [given];
  if (list.length === 0 || list.some((alg) => typeof alg !== 'string' || alg.toLowerCase() === 'none')) {
    throw new WebhookError('AUTH_NOT_CONFIGURED', 'The JWT credential must name its signing algorithms, and "none" is never allowed.');
  }
  return list;
}

function keyOf(credential: JwtAuthCredential, algorithm: string, { importSPKI, importX509 }: Jose): Promise<KeyObject | CryptoKeyLike | Uint8Array> {
  let key = keyCache.get(credential);
  if (key === undefined) {
    if (credential.keyType === 'passphrase') {
      if (typeof credential.secret !== 'string' || credential.secret === '') throw new WebhookError('AUTH_NOT_CONFIGURED', 'The JWT credential has no secret.');
      key = Promise.resolve(new TextEncoder().encode(credential.secret));
    } else {
      const pem = credential.publicKey ?? '';
      key = pem.includes('BEGIN CERTIFICATE') ? importX509(pem, algorithm) : importSPKI(pem, algorithm);
    }
    keyCache.set(credential, key);
  }
  return key;
}

async function checkJwt(req: IncomingMessage, credential: JwtAuthCredential): Promise<JWTPayload> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (match === null) throw required('Bearer realm="Webhook"');
  const algorithms = algorithmsOf(credential);
  const lib = jose ?? await loadJose();
  let key: KeyObject | CryptoKeyLike | Uint8Array;
  try {
    key = await keyOf(credential, algorithms[0] as string, lib);
  } catch (error) {
    throw error instanceof WebhookError ? error : new WebhookError('AUTH_NOT_CONFIGURED', 'The JWT credential\'s key cannot be read.', { cause: error });
  }
  try {
    const { payload } = await lib.jwtVerify(match[1] as string, key, { algorithms });
    return payload;
  } catch (error) {
    if (error instanceof lib.errors.JWTExpired) throw new WebhookError('AUTH_INVALID', 'The token has expired.', { cause: error });
    throw wrong();
  }
}

/**
 * Checks the call against the node's authentication; resolves the JWT payload for jwtAuth, and for signatureAuth
 * the check of the body, which the payload stage runs over the raw bytes before parsing them.
 */
export async function authenticate(
  req: IncomingMessage,
  webhook: RegisteredWebhook,
  resolver: CredentialResolver | undefined,
  replay: ReplayMemory,
): Promise<AuthOutcome> {
  const { authentication } = webhook.parameters;
  if (authentication === 'none') return undefined;
  const credential = resolver === undefined ? undefined : await resolver({
    workflowId: webhook.workflowId, nodeName: webhook.nodeName, authentication, credentials: webhook.credentials,
  });
  if (credential === undefined || credential === null) {
    throw new WebhookError('AUTH_NOT_CONFIGURED', `No credential is available for the ${authentication} of node "${webhook.nodeName}".`, {
      hint: 'Pass a credentials resolver to createWebhookMiddleware that returns the credential of this node.',
    });
  }
  const checkedHeader = checkedHeaderOf(authentication, credential as unknown as Record<string, unknown>);
  switch (authentication) {
    case 'basicAuth':
      return { checkedHeader, caller: `basic:${checkBasic(req, credential as BasicAuthCredential)}` };
    case 'headerAuth':
      // One credential per node: every caller that holds it is the same caller.
      checkHeader(req, credential as HeaderAuthCredential);
      return { checkedHeader, caller: `header:${checkedHeader ?? ''}` };
    case 'jwtAuth': {
      const jwtPayload = await checkJwt(req, credential as JwtAuthCredential);
      return { jwtPayload, checkedHeader, caller: jwtCaller(jwtPayload) };
    }
    case 'signatureAuth':
      // Its caller counts only once the signature holds: the rate limit and the idempotency key come after that.
      return { signature: checkSignature(req, credential as SignatureAuthCredential, { replay, workflowId: webhook.workflowId, nodeName: webhook.nodeName }), checkedHeader, caller: 'signature' };
  }
}
