/**
 * The guard stage (DESIGN §1, between match and parse): what may refuse a call before its body is read or its
 * workflow runs. In order: the browser origin (CORS), bots, the IP allowlist, authentication. A refused call never
 * reaches the executor and does not use up a test listen.
 */
import type { IncomingMessage } from 'node:http';
import { isbot } from 'isbot';
import { WebhookError } from '../errors.js';
import type { RegisteredWebhook } from '../types.js';
import { authenticate, type CredentialResolver } from './authenticate.js';
import { clientAddress } from './client-address.js';
import { corsHeaders } from './cors.js';
import { checkAllowlist } from './ip-allowlist.js';

export interface GuardSettings {
  proxyHops: number;
  credentials: CredentialResolver | undefined;
}

export interface GuardResult {
  /** CORS headers every answer of the call carries. */
  cors: Record<string, string>;
  /** The verified token's payload, for jwtAuth; it goes into the trigger item. */
  jwtPayload: Record<string, unknown> | undefined;
}

const UNGUARDED: GuardResult = Object.freeze({ cors: Object.freeze({}) as Record<string, string>, jwtPayload: undefined });

/** Synchronous for a node without guards (the common case costs no promise), a promise otherwise. */
export function guardCall(req: IncomingMessage, webhook: RegisteredWebhook, settings: GuardSettings): GuardResult | Promise<GuardResult> {
  const { parameters } = webhook;
  if (parameters.allowedOrigins === undefined && !parameters.ignoreBots && parameters.ipAllowlist === undefined && parameters.authentication === 'none') {
    return UNGUARDED;
  }
  return guardGuarded(req, webhook, settings);
}

async function guardGuarded(req: IncomingMessage, webhook: RegisteredWebhook, settings: GuardSettings): Promise<GuardResult> {
  const { parameters } = webhook;
  const cors = corsHeaders(parameters.allowedOrigins, req.headers.origin);
  if (parameters.ignoreBots && isbot(req.headers['user-agent'] ?? '')) {
    throw new WebhookError('BOT_IGNORED', 'Calls from bots and link previewers are ignored by this webhook.', { headers: cors });
  }
  try {
    checkAllowlist(parameters.ipAllowlist, clientAddress(req, settings.proxyHops));
    const jwtPayload = await authenticate(req, webhook, settings.credentials);
    return { cors, jwtPayload };
  } catch (error) {
    if (error instanceof WebhookError) Object.assign(error.headers, cors);
    throw error;
  }
}
