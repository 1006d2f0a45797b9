/**
 * The security schemes of the document: one per kind of authentication the active webhooks use, and for header and
 * signature authentication one per header. Which header is the credential's business, and the registry never sees
 * credentials: the host's `credentials` resolver (the middleware's own) names it. Only header names and the signing
 * scheme are read from what it returns, never a secret; without it a scheme says that its header name stands in.
 */
import type { RegisteredWebhook } from '../registry/contract.js';
import { SIGNATURE_HEADERS, type Authentication, type SignatureHeaders, type SignatureScheme } from '../../core/types.js';
import { isHeaderName } from '../registry/node-options.js';

/** The host's credentials resolver, as the middleware takes it; describing calls it once per node. */
export type CredentialLookup = (request: {
  workflowId: string;
  nodeName: string;
  authentication: Exclude<Authentication, 'none'>;
  credentials: unknown;
}) => unknown;

export type SecurityScheme = Record<string, unknown>;

/** What a node's authentication asks of a call, in the document's terms. */
export interface NodeSecurity {
  /** Key of its scheme in `components.securitySchemes`; undefined without authentication. */
  scheme: string | undefined;
  /** Headers the call must send beside the scheme's own (a signature's timestamp and message id). */
  headers: { name: string; description: string }[];
  /** A call without credentials is answered 401 (with a challenge); header auth answers 403 instead. */
  challenges: boolean;
  /** A message id seen before is refused (409): Standard Webhooks. */
  replays: boolean;
}

const NO_SECURITY: NodeSecurity = { scheme: undefined, headers: [], challenges: false, replays: false };

/** Stands in for a header whose name only the credential knows. */
const PLACEHOLDER = { headerAuth: 'X-Webhook-Auth', signatureAuth: 'X-Webhook-Signature' } as const;

/** What each known sender's signature holds; its headers come from SIGNATURE_HEADERS, which the check reads too. */
const HOLDS: Record<Exclude<SignatureScheme, 'custom'>, string> = {
  standardWebhooks: '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64 after `whsec_` (Standard Webhooks)',
  github: '`sha256=` and the hex HMAC-SHA256 of the body (GitHub)',
  stripe: '`t=<unix seconds>,v1=` and the hex HMAC-SHA256 of `<t>.<body>` (Stripe)',
  slack: '`v0=` and the hex HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<body>` (Slack)',
  shopify: 'the base64 HMAC-SHA256 of the body (Shopify)',
};

function senderOf(scheme: Exclude<SignatureScheme, 'custom'>): { header: string; others: string[]; holds: string } {
  const sent: SignatureHeaders = SIGNATURE_HEADERS[scheme];
  return { header: sent.signature, others: [sent.id, sent.timestamp].filter((name) => name !== undefined), holds: HOLDS[scheme] };
}

function headerName(value: unknown): string | undefined {
  return isHeaderName(value) ? value : undefined;
}

/** The node's credential as the resolver gives it; a resolver that fails or has none leaves the scheme generic. */
export async function credentialOf(webhook: RegisteredWebhook, lookup: CredentialLookup | undefined): Promise<Record<string, unknown> | undefined> {
  const { authentication } = webhook.parameters;
  if (lookup === undefined || authentication === 'none') return undefined;
  try {
    const credential = await lookup({ workflowId: webhook.workflowId, nodeName: webhook.nodeName, authentication, credentials: webhook.credentials });
    return typeof credential === 'object' && credential !== null ? credential as Record<string, unknown> : undefined;
  } catch {
    // The document must not fail for one node's credential: its calls are answered AUTH_NOT_CONFIGURED all the same.
    return undefined;
  }
}

/** A component key for a header's scheme: letters, digits, `.`, `-` and `_` only. */
function keyOf(kind: string, name: string): string {
  return `${kind}_${name.toLowerCase().replace(/[^a-z0-9.-]/g, '_')}`;
}

const TIMESTAMP_NOTE = 'Unix seconds the sender signed at; a call more than the tolerance (five minutes by default) from now is refused 403.';

/** Collects the schemes the nodes use while it tells each node which one is its own. */
export class SecuritySchemes {
  readonly #schemes: Record<string, SecurityScheme> = {};

  /** The components' `securitySchemes`, sorted by key so that the document is the same every time. */
  get schemes(): Record<string, SecurityScheme> {
    return Object.fromEntries(Object.entries(this.#schemes).sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  /** The node's scheme, given the credential its resolver returned (see credentialOf). */
  of(webhook: RegisteredWebhook, credential: Record<string, unknown> | undefined): NodeSecurity {
    const { authentication } = webhook.parameters;
    switch (authentication) {
      case 'none':
        return NO_SECURITY;
      case 'basicAuth':
        return this.#add('basicAuth', {
          type: 'http', scheme: 'basic',
          description: 'The user and password of the node\'s credential. Without them the call is answered 401 with a Basic challenge; wrong ones 403.',
        }, true);
      case 'jwtAuth':
        return this.#add('jwtAuth', {
          type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
          description: 'A JSON Web Token signed with the key and algorithm of the node\'s credential. Without one the call is answered 401; '
            + 'a bad signature, another algorithm, `none` or an expired token 403. Its payload reaches the workflow as `jwtPayload`.',
        }, true);
      case 'headerAuth':
        return this.#header(credential);
      case 'signatureAuth':
        return this.#signature(credential);
    }
  }

  /** Nodes that ask the same share a scheme; two that ask differently under one header each get their own key. */
  #add(base: string, scheme: SecurityScheme, challenges: boolean, extra: Partial<NodeSecurity> = {}): NodeSecurity {
    const text = JSON.stringify(scheme);
    let key = base;
    for (let n = 2; this.#schemes[key] !== undefined && JSON.stringify(this.#schemes[key]) !== text; n += 1) key = `${base}_${n}`;
    this.#schemes[key] = scheme;
    return { ...NO_SECURITY, scheme: key, challenges, ...extra };
  }

  #header(credential: Record<string, unknown> | undefined): NodeSecurity {
    const name = headerName(credential?.name);
    if (name === undefined) {
      return this.#add('headerAuth', {
        type: 'apiKey', in: 'header', name: PLACEHOLDER.headerAuth,
        description: `A header whose name and value are the node's credential's. This document was made without the credentials `
          + `resolver that names it, so \`${PLACEHOLDER.headerAuth}\` stands in for it. Without it, or with another value, the call is answered 403.`,
      }, false);
    }
    return this.#add(keyOf('headerAuth', name), {
      type: 'apiKey', in: 'header', name,
      description: `The header ${name} with the value of the node's credential. Without it, or with another value, the call is answered 403.`,
    }, false);
  }

  #signature(credential: Record<string, unknown> | undefined): NodeSecurity {
    const scheme = credential?.scheme;
    if (typeof scheme === 'string' && Object.hasOwn(SIGNATURE_HEADERS, scheme)) {
      const sender = senderOf(scheme as Exclude<SignatureScheme, 'custom'>);
      return this.#add(`signatureAuth_${scheme}`, {
        type: 'apiKey', in: 'header', name: sender.header,
        description: `A signature of this call's body with the node's secret, not a key to send as is: ${sender.holds}. `
          + `Without it the call is answered 401; a wrong or stale one 403${scheme === 'standardWebhooks' ? '; a message id seen before 409' : ''}.`,
      }, true, {
        headers: sender.others.map((name) => ({ name, description: /timestamp/i.test(name) ? TIMESTAMP_NOTE : 'The sender\'s message id; each is accepted once.' })),
        replays: scheme === 'standardWebhooks',
      });
    }
    const header = scheme === 'custom' ? headerName(credential?.header) : undefined;
    if (header === undefined) {
      return this.#add('signatureAuth', {
        type: 'apiKey', in: 'header', name: PLACEHOLDER.signatureAuth,
        description: 'A signature of this call\'s body by the sender\'s scheme (Standard Webhooks, GitHub, Stripe, Slack, Shopify or '
          + `a custom HMAC), which the node's credential names. This document was made without the credentials resolver, so \`${PLACEHOLDER.signatureAuth}\` `
          + 'stands in for the header. Without a signature the call is answered 401; a wrong or stale one 403; a replayed message 409.',
      }, true, { replays: true });
    }
    const timestamp = headerName(credential?.timestampHeader);
    const encoding = credential?.encoding === 'base64' ? 'base64' : 'hex';
    const algorithm = typeof credential?.algorithm === 'string' ? credential.algorithm.toUpperCase() : 'SHA256';
    const prefix = typeof credential?.prefix === 'string' && credential.prefix !== '' ? `\`${credential.prefix}\` and ` : '';
    const content = typeof credential?.signedContent === 'string' ? credential.signedContent : timestamp === undefined ? '{body}' : '{timestamp}.{body}';
    const where = timestamp === undefined ? '' : ` (\`{timestamp}\`: the ${timestamp} header)`;
    return this.#add(keyOf('signatureAuth', header), {
      type: 'apiKey', in: 'header', name: header,
      description: `A signature of this call's body with the node's secret, not a key to send as is: ${prefix}the ${encoding} HMAC-${algorithm} `
        + `of \`${content}\`${where}. Without it the call is answered 401; a wrong or stale one 403.`,
    }, true, { headers: timestamp === undefined ? [] : [{ name: timestamp, description: TIMESTAMP_NOTE }] });
  }
}
