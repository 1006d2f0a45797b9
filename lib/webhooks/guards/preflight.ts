/**
 * OPTIONS calls, answered without a workflow: a CORS preflight for a registered path and requested method gets the
 * path's methods and the node's CORS headers; a plain OPTIONS gets `Allow`. The known platform answers every OPTIONS
 * with 204 whatever the path; here an unknown path is a 404 like any other call.
 */
import type { IncomingMessage } from 'node:http';
import { matchWebhook } from '../request/match.js';
import type { RequestTarget } from '../request/target.js';
import type { WebhookRegistry } from '../registry/contract.js';
import { PREFLIGHT_VARY, preflightHeaders } from './cors.js';

/** A preflight's answer: a status and headers, no body (the response stage writes it like any plan). */
export interface PreflightAnswer {
  status: 204;
  headers: Record<string, string>;
}

async function methodsOf(registry: WebhookRegistry, target: RequestTarget): Promise<string[]> {
  // OPTIONS is never registered, so the look-up answers with every method the path has.
  const lookup = await registry.lookup(target.kind === 'waiting' ? 'production' : target.kind, 'OPTIONS', target.rawPath);
  return lookup.found ? [] : lookup.methods;
}

export async function answerOptions(req: IncomingMessage, registry: WebhookRegistry, target: RequestTarget): Promise<PreflightAnswer> {
  const origin = req.headers.origin;
  const requested = req.headers['access-control-request-method'];
  if (origin === undefined || requested === undefined) {
    const methods = await methodsOf(registry, target);
    if (methods.length === 0) await matchWebhook(registry, target, 'OPTIONS');
    return { status: 204, headers: { allow: ['OPTIONS', ...methods].join(', '), vary: PREFLIGHT_VARY } };
  }
  const { webhook } = await matchWebhook(registry, target, requested.trim().toUpperCase());
  const requestedHeaders = req.headers['access-control-request-headers'];
  const headers = preflightHeaders(webhook.parameters.allowedOrigins, origin, await methodsOf(registry, target), requestedHeaders);
  return { status: 204, headers };
}
