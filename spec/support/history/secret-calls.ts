/**
 * Calls that carry a credential of every kind, for the specs of what call history keeps of them: an Express 5 app
 * whose webhooks are guarded by Basic credentials, a bearer token and a header of an innocent name (header auth), a
 * JWT and two senders' signatures, plus an address with a `:token` path parameter; every call also sends a cookie,
 * an API key header and `?access_token=` / `?api_key=` query parameters. Every secret is a distinctive string, and
 * the workflow echoes the trigger item and repeats the secrets inside strings of its own, so the kept answer holds
 * them too unless history redacts it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SignJWT } from 'jose';
import {
  createWebhookMiddleware, MemoryWebhookRegistry, type CredentialResolver, type HistoryOptions, type WebhookExecutor, type WebhookMiddleware,
  type WebhookMiddlewareOptions, type WorkflowWebhooks,
} from '../../../lib/index.js';
import { closeAll } from '../close-all.js';
import { credentialOf, SECRETS, signedHeaders } from '../signers.js';

export const BASE = '/hooks';
export const BASIC_USER = 'grace-hist';
export const BASIC_PASSWORD = 'hist-basic-pw-5ecret';
export const BASIC_BLOB = Buffer.from(`${BASIC_USER}:${BASIC_PASSWORD}`).toString('base64');
/** A refused call's password: refused calls are not kept, so it must be nowhere either. */
export const WRONG_PASSWORD = 'hist-wrong-pw-5ecret';
export const BEARER_TOKEN = 'hist-bearer-5ecret-tok';
/** Checked under `X-Partner-Ident`, a name that says nothing of a credential: only the node's authentication tells. */
export const IDENT_SECRET = 'hist-ident-5ecret';
export const COOKIE_SECRET = 'hist-cookie-5ecret';
export const API_KEY_HEADER = 'hist-xapikey-5ecret';
/** Sent percent-encoded in the path (`%2B`): the encoded and the decoded form both must be gone. */
export const PATH_TOKEN = 'rst+hist~path-5ecret';
/** With a space and a slash, so its URL form differs from it. */
export const ACCESS_TOKEN = 'hist access/token 5ecret';
export const QUERY_API_KEY = 'hist-query-apikey-5ecret';
const JWT_KEY = 'the passphrase of the history jwt credential, 32+ bytes';

/** Not secret, and distinctive: `encryption` must hide them from a reader of the store all the same. */
export const BODY_MARKER = 'body-marker-7f3e21';
export const TRACE_MARKER = 'trace-marker-91c2d';
export const BODY = JSON.stringify({ order: { id: 'A-1', marker: BODY_MARKER } });

type Guard = 'basicAuth' | 'headerAuth' | 'jwtAuth' | 'signatureAuth' | 'none';

function hook(workflowId: string, path: string, authentication: Guard): WorkflowWebhooks {
  return {
    workflowId,
    nodes: [{
      name: 'Webhook',
      parameters: { path, httpMethod: 'POST', authentication, responseMode: 'lastNode', responseData: 'allEntries' },
      ...(authentication === 'none' ? {} : { credentials: { [authentication]: { id: workflowId, name: `${workflowId} credential` } } }),
    }],
  };
}

export const SECRET_HOOKS: WorkflowWebhooks[] = [
  hook('basic', 'secrets/basic', 'basicAuth'), hook('bearer', 'secrets/bearer', 'headerAuth'), hook('ident', 'secrets/ident', 'headerAuth'),
  hook('jwt', 'secrets/jwt', 'jwtAuth'), hook('custom-signed', 'secrets/custom', 'signatureAuth'), hook('stripe-signed', 'secrets/stripe', 'signatureAuth'),
  hook('reset', 'secrets/reset/:token', 'none'),
];

const credentials: CredentialResolver = ({ workflowId }) => {
  switch (workflowId) {
    case 'basic': return { user: BASIC_USER, password: BASIC_PASSWORD };
    case 'bearer': return { name: 'Authorization', value: `Bearer ${BEARER_TOKEN}` };
    case 'ident': return { name: 'X-Partner-Ident', value: IDENT_SECRET };
    case 'jwt': return { keyType: 'passphrase', secret: JWT_KEY, algorithm: 'HS256' };
    case 'custom-signed': return credentialOf('custom');
    case 'stripe-signed': return credentialOf('stripe');
    default: return undefined;
  }
};

/** Passes the trigger item through, and repeats its secrets inside longer strings: the answer holds every one of them. */
export const echoExecutor: WebhookExecutor = (run) => {
  const json = run.items[0]?.json as { headers: Record<string, string | undefined>; query: Record<string, string>; params: Record<string, string> };
  const authorization = json.headers.authorization ?? '';
  const basic = authorization.startsWith('Basic ') ? Buffer.from(authorization.slice(6), 'base64').toString('utf8') : '';
  return {
    items: [...run.items, {
      json: {
        note: `signed in with ${basic.split(':')[1] ?? 'no password'}`,
        bearer: `token was ${authorization.replace(/^Bearer /, '')}`,
        partner: `partner ${json.headers['x-partner-ident'] ?? 'none'}`,
        link: `https://example.com/cb?access_token=${encodeURIComponent(json.query.access_token ?? '')}`,
        reset: `reset with ${json.params.token ?? 'no token'}`,
      },
    }],
  };
};

/** A call this spec sends: to which workflow, what it should be answered, and whether history keeps it. */
export interface SentCall {
  label: string;
  workflowId: string;
  status: number;
  kept: boolean;
}

/** What the calls carried: every secret, the JWT and the signature headers included (known once they are made). */
export interface SentCalls {
  calls: SentCall[];
  secrets: string[];
}

const QUERY = `?ref=plain&access_token=${encodeURIComponent(ACCESS_TOKEN)}&api_key=${QUERY_API_KEY}`;
const EVERY_CALL = {
  'content-type': 'application/json', cookie: `session=${COOKIE_SECRET}; theme=dark`, 'x-api-key': API_KEY_HEADER, 'x-trace': TRACE_MARKER,
};

/** Sends one call of each kind to the app at `origin`; resolves once every answer is read, with what they carried. */
export async function sendSecretCalls(origin: string): Promise<SentCalls> {
  const jwt = await new SignJWT({ sub: 'partner-7' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(JWT_KEY));
  const custom = await signedHeaders('custom', BODY);
  const stripe = await signedHeaders('stripe', BODY);
  const sends: Array<[SentCall, string, Record<string, string>, string?]> = [
    [{ label: 'Basic', workflowId: 'basic', status: 200, kept: true }, 'basic', { authorization: `Basic ${BASIC_BLOB}` }],
    [{ label: 'a bearer token', workflowId: 'bearer', status: 200, kept: true }, 'bearer', { authorization: `Bearer ${BEARER_TOKEN}` }],
    [{ label: 'a header of an innocent name', workflowId: 'ident', status: 200, kept: true }, 'ident', { 'x-partner-ident': IDENT_SECRET }],
    [{ label: 'a JWT', workflowId: 'jwt', status: 200, kept: true }, 'jwt', { authorization: `Bearer ${jwt}` }],
    [{ label: 'a custom signature', workflowId: 'custom-signed', status: 200, kept: true }, 'custom', custom],
    [{ label: 'a Stripe signature', workflowId: 'stripe-signed', status: 200, kept: true }, 'stripe', stripe],
    [{ label: 'a :token path parameter', workflowId: 'reset', status: 200, kept: true }, `reset/${encodeURIComponent(PATH_TOKEN)}`, {}],
    // Refused after its guard passed (the body is no JSON): kept, with what it sent.
    [{ label: 'Basic, with a body refused', workflowId: 'basic', status: 400, kept: true }, 'basic', { authorization: `Basic ${BASIC_BLOB}` }, '{"order": '],
    // Refused by its guard: not kept.
    [{ label: 'a wrong Basic password', workflowId: 'basic', status: 403, kept: false }, 'basic',
      { authorization: `Basic ${Buffer.from(`${BASIC_USER}:${WRONG_PASSWORD}`).toString('base64')}` }],
  ];
  for (const [call, path, headers, body] of sends) {
    const answer = await fetch(`${origin}${BASE}/webhook/secrets/${path}${QUERY}`, { method: 'POST', headers: { ...EVERY_CALL, ...headers }, body: body ?? BODY });
    await answer.arrayBuffer();
    if (answer.status !== call.status) throw new Error(`the call with ${call.label} was answered ${answer.status}, not ${call.status}`);
  }
  // A signature header as sent, and the digest inside it (custom: after its prefix; Stripe: each `v1=`).
  const signatures = [custom['x-acme-signature'], stripe['stripe-signature']].flatMap((value = '') => [
    value, value.replace(/^acme1:/, ''), ...[...value.matchAll(/v1=([0-9a-f]+)/g)].map((match) => match[1] as string),
  ]);
  return {
    calls: sends.map(([call]) => call),
    secrets: [
      BASIC_PASSWORD, BASIC_BLOB, `${BASIC_USER}:${BASIC_PASSWORD}`, WRONG_PASSWORD, BEARER_TOKEN, IDENT_SECRET, COOKIE_SECRET, API_KEY_HEADER,
      PATH_TOKEN, ACCESS_TOKEN, QUERY_API_KEY, jwt, ...signatures, SECRETS.custom, SECRETS.stripe,
    ],
  };
}

/** Each secret as it may be written down: itself, URL-encoded, base64 and base64url. */
export function writtenForms(secrets: readonly string[]): string[] {
  return [...new Set(secrets.flatMap((secret) => [
    secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64url'),
  ]))];
}

/** The forms of the secrets `text` holds: none is the only right answer. */
export function leaked(text: string, secrets: readonly string[]): string[] {
  return writtenForms(secrets).filter((form) => text.includes(form));
}

export interface HistoryApp {
  origin: string;
  middleware: WebhookMiddleware;
  close(): Promise<void>;
}

/** The app on a loopback port, every secret webhook active, history kept as `history` says. */
export async function startHistoryApp(history: HistoryOptions, extra: WebhookMiddlewareOptions = {}, executor: WebhookExecutor = echoExecutor): Promise<HistoryApp> {
  const registry = new MemoryWebhookRegistry();
  for (const workflow of SECRET_HOOKS) await registry.activate(workflow);
  const middleware = createWebhookMiddleware(registry, executor, {
    credentials, history, logger: { error: () => undefined, warn: () => undefined }, ...extra,
  });
  const app = express();
  app.use(BASE, middleware);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    middleware,
    close: () => closeAll(
      () => middleware.close({ timeoutMs: 1000 }),
      () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
    ),
  };
}
