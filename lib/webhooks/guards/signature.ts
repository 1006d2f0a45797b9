/**
 * Signed webhooks (`authentication: 'signatureAuth'`): what the headers say is checked before the body is read
 * (present, well formed, signed within the tolerance), then the HMAC over the exact body bytes, against every
 * secret of a rotation, compared in constant time; last, a message id seen before is refused. Only a call that
 * passes all of it is parsed and reaches its workflow.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import type { ReplayMemory } from '../registry/message-ids.js';
import { isHeaderName } from '../registry/node-options.js';
import { SIGNATURE_SCHEMES, type VerifiedSignature } from '../../core/types.js';
import { MissingSignature, readSignatureClaim, type SignatureAuthCredential, type SignatureClaim } from './signature-schemes.js';

/** A call whose headers passed: its body is checked next, before anything parses it. */
export interface PendingSignature {
  verify(body: Buffer): Promise<VerifiedSignature>;
}

export interface SignatureContext {
  replay: ReplayMemory;
  workflowId: string;
  nodeName: string;
}

const DEFAULT_TOLERANCE_SECONDS = 300;

function notConfigured(message: string): WebhookError {
  return new WebhookError('AUTH_NOT_CONFIGURED', `The signature credential ${message}`);
}

function secretsOf(credential: SignatureAuthCredential): string[] {
  const list = Array.isArray(credential.secret) ? credential.secret : [credential.secret];
  if (list.length === 0 || list.some((secret) => typeof secret !== 'string' || secret === '')) {
    throw notConfigured('needs a secret: a non-empty string, or a list of them during a rotation.');
  }
  return list;
}

function toleranceOf(credential: SignatureAuthCredential): number {
  const tolerance = credential.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !(tolerance > 0) || !Number.isFinite(tolerance)) {
    throw notConfigured('has a toleranceSeconds that is not a positive number of seconds.');
  }
  return tolerance;
}

/** The credential's own mistakes are the host's configuration errors (500), never the caller's. */
function checkCredential(credential: SignatureAuthCredential): void {
  if (!(SIGNATURE_SCHEMES as readonly string[]).includes(credential.scheme)) {
    throw notConfigured(`has the scheme ${JSON.stringify(credential.scheme)}; use one of ${SIGNATURE_SCHEMES.join(', ')}.`);
  }
  if (credential.scheme !== 'custom') return;
  if (!isHeaderName(credential.header)) throw notConfigured('(custom) needs the header that carries the signature.');
  if (credential.algorithm !== undefined && !['sha1', 'sha256', 'sha512'].includes(credential.algorithm)) {
    throw notConfigured('(custom) has an algorithm other than sha1, sha256 or sha512.');
  }
  if (credential.encoding !== undefined && credential.encoding !== 'hex' && credential.encoding !== 'base64') {
    throw notConfigured('(custom) has an encoding other than hex or base64.');
  }
  if (credential.timestampHeader !== undefined && !isHeaderName(credential.timestampHeader)) {
    throw notConfigured('(custom) has a timestampHeader that is not a header name.');
  }
}

function claimOf(req: IncomingMessage, credential: SignatureAuthCredential): SignatureClaim {
  try {
    return readSignatureClaim(req, credential);
  } catch (error) {
    if (!(error instanceof MissingSignature)) throw error;
    // Every 401 carries a challenge: this one names the scheme and the header the call lacks.
    throw new WebhookError('SIGNATURE_MISSING', `The webhook signature is missing: ${error.message}`, {
      headers: { 'www-authenticate': `Signature realm="Webhook", scheme="${credential.scheme}", header="${error.header}"` },
    });
  }
}

function checkTimestamp(claim: SignatureClaim, toleranceSeconds: number): void {
  if (claim.timestamp === undefined) return;
  const drift = Math.abs(Date.now() / 1000 - claim.timestamp);
  if (drift > toleranceSeconds) {
    throw new WebhookError('SIGNATURE_EXPIRED', 'The webhook signature was made outside the accepted time window.', {
      hint: `The signed timestamp must be within ${toleranceSeconds} seconds of the server's clock.`,
    });
  }
}

/** Any secret of the rotation against any offered signature; timingSafeEqual only ever sees equal lengths. */
function matches(claim: SignatureClaim, secrets: readonly string[], body: Buffer): boolean {
  const content = claim.signedContent(body);
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac(claim.algorithm, claim.keyOf(secret)).update(content).digest();
    for (const offered of claim.signatures) {
      if (offered.length === expected.length && timingSafeEqual(offered, expected)) matched = true;
    }
  }
  return matched;
}

/**
 * Checks a signed call's headers now (SIGNATURE_MISSING 401 with a challenge, SIGNATURE_INVALID 403 for a malformed
 * one, SIGNATURE_EXPIRED 403) and returns the check of its body (SIGNATURE_INVALID 403, SIGNATURE_REPLAYED 409).
 */
export function checkSignature(req: IncomingMessage, credential: SignatureAuthCredential, context: SignatureContext): PendingSignature {
  checkCredential(credential);
  const secrets = secretsOf(credential);
  const toleranceSeconds = toleranceOf(credential);
  const claim = claimOf(req, credential);
  checkTimestamp(claim, toleranceSeconds);
  return {
    async verify(body) {
      if (!matches(claim, secrets, body)) throw new WebhookError('SIGNATURE_INVALID', 'The webhook signature does not match.');
      const verified: VerifiedSignature = { scheme: claim.scheme };
      if (claim.timestamp !== undefined) verified.timestamp = claim.timestamp;
      if (claim.messageId === undefined) return verified;
      verified.messageId = claim.messageId;
      // Remembered only once the signature holds, so that forged calls cannot use up a sender's ids; for twice the
      // tolerance, the longest time a signed timestamp stays acceptable.
      const key = JSON.stringify([context.workflowId, context.nodeName, claim.messageId]);
      if (!await context.replay.remember(key, toleranceSeconds * 2000)) {
        throw new WebhookError('SIGNATURE_REPLAYED', `The webhook message ${claim.messageId} was received before.`, {
          hint: 'Each message id is accepted once; a sender retrying a delivery that already arrived gets this answer.',
        });
      }
      return verified;
    },
  };
}
