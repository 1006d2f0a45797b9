/**
 * Signs calls as each sender does, with the senders' own published code where there is one (standardwebhooks,
 * @octokit/webhooks-methods, stripe's test header helper) and by Slack's and Shopify's documented algorithms for
 * the rest, so the specs check the middleware against real signatures, not against its own idea of them.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import type { SignatureAuthCredential } from '../../lib/index.js';

export const SECRETS = {
  standardWebhooks: `whsec_${Buffer.from('a standard webhooks secret of 32 b').toString('base64')}`,
  github: 'github-webhook-secret',
  stripe: 'whsec_stripe_test_secret_0123456789',
  slack: '8f742231b10e8888abcd99yyyzzz85a5',
  shopify: 'shpss_shopify_app_secret',
  custom: 'custom-sender-secret',
} as const;

export type Scheme = keyof typeof SECRETS;

/** The custom scheme the specs use: SHA-512, base64, a prefix, a timestamp header and a template. */
export const CUSTOM_CREDENTIAL = {
  scheme: 'custom' as const, secret: SECRETS.custom, header: 'X-Acme-Signature', algorithm: 'sha512' as const,
  encoding: 'base64' as const, prefix: 'acme1:', timestampHeader: 'X-Acme-Time', signedContent: '{timestamp}\n{body}',
};

export interface SignOptions {
  secret?: string;
  /** Unix seconds to sign at; default now. */
  at?: number;
  messageId?: string;
}

/** The headers a sender adds to a call with `body`. */
export async function signedHeaders(scheme: Scheme, body: string, options: SignOptions = {}): Promise<Record<string, string>> {
  const at = options.at ?? Math.floor(Date.now() / 1000);
  switch (scheme) {
    case 'standardWebhooks': {
      const id = options.messageId ?? `msg_${randomUUID()}`;
      const signature = new StandardWebhook(options.secret ?? SECRETS.standardWebhooks).sign(id, new Date(at * 1000), body);
      return { 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': signature };
    }
    case 'github':
      return { 'x-hub-signature-256': await githubSign(options.secret ?? SECRETS.github, body), 'x-github-event': 'push' };
    case 'stripe':
      return { 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret: options.secret ?? SECRETS.stripe, timestamp: at }) };
    case 'slack': {
      const digest = createHmac('sha256', options.secret ?? SECRETS.slack).update(`v0:${at}:${body}`).digest('hex');
      return { 'x-slack-signature': `v0=${digest}`, 'x-slack-request-timestamp': String(at) };
    }
    case 'shopify':
      return { 'x-shopify-hmac-sha256': createHmac('sha256', options.secret ?? SECRETS.shopify).update(body).digest('base64') };
    case 'custom': {
      const digest = createHmac('sha512', options.secret ?? SECRETS.custom).update(`${at}\n${body}`).digest('base64');
      return { 'x-acme-signature': `acme1:${digest}`, 'x-acme-time': String(at) };
    }
  }
}

/** The credential a host's resolver returns for each scheme. */
export function credentialOf(scheme: Scheme, secret: string | string[] = SECRETS[scheme]): SignatureAuthCredential {
  return scheme === 'custom' ? { ...CUSTOM_CREDENTIAL, secret } : { scheme, secret };
}
