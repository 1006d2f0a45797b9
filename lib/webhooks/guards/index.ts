/**
 * The guard stage (between match and parse): what may refuse a call before its body is read or its
 * workflow runs. In order: the browser origin (CORS, `cors.ts`, applied first by the middleware so that every later
 * answer, errors included, carries its headers), bots, the IP allowlist, authentication. A refused call never
 * reaches the executor and does not use up a test listen.
 */
import type { IncomingMessage } from 'node:http';
import { isbot } from 'isbot';
import { WebhookError } from '../../core/errors.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import { authenticate, type AuthOutcome, type CredentialResolver } from './authenticate.js';
import { clientAddress } from './client-address.js';
import { checkAllowlist } from './ip-allowlist.js';
import type { ReplayMemory } from '../registry/message-ids.js';

export interface GuardSettings {
  proxyHops: number;
  credentials: CredentialResolver | undefined;
  /** Where signed message ids are remembered: the registry's shared store, else this process. */
  replay: ReplayMemory;
}

/**
 * Synchronous (undefined) for a node without guards, the common case: no promise. Resolves what authentication
 * hands on (a JWT's payload, a signed call's pending check).
 */
export function guardCall(req: IncomingMessage, webhook: RegisteredWebhook, settings: GuardSettings): AuthOutcome | Promise<AuthOutcome> {
  const { parameters } = webhook;
  if (!parameters.ignoreBots && parameters.ipAllowlist === undefined && parameters.authentication === 'none') return undefined;
  if (parameters.ignoreBots && isbot(req.headers['user-agent'] ?? '')) {
    throw new WebhookError('BOT_IGNORED', 'Calls from bots and link previewers are ignored by this webhook.');
  }
  checkAllowlist(parameters.ipAllowlist, clientAddress(req, settings.proxyHops));
  return authenticate(req, webhook, settings.credentials, settings.replay);
}
