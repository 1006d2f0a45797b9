/**
 * Calls that carry every kind of credential, for the specs of what the console shows of them: guarded workflows
 * (Basic, header auth under a credential word and under an innocent name, JWT), the host's credentials resolver, a
 * workflow that passes the trigger item through and repeats its secrets inside strings of its own, and the call
 * itself (credential headers, a cookie, an API key header, secret query parameters, a file named after a token).
 */
import { SignJWT } from 'jose';
import type { CredentialResolver, WebhookExecutor, WorkflowWebhooks } from '../../lib/index.js';
import { consoleExecutor } from './console-app.js';

export const BASIC_USER = 'ada';
export const BASIC_PASSWORD = 'pw-basic-5ecret';
export const BASIC_BLOB = Buffer.from(`${BASIC_USER}:${BASIC_PASSWORD}`).toString('base64');
export const HEADER_SECRET = 'hdr-auth-5ecret';
/** Checked under `X-Partner-Ident`, a name that says nothing of a credential: only the resolver tells. */
export const IDENT_SECRET = 'ident-5ecret-77';
export const COOKIE_SECRET = 'cookie-5ecret-1';
export const API_KEY_SECRET = 'api-key-5ecret';
export const QUERY_TOKEN = 'query-token-5ecret';
export const QUERY_API_KEY = 'query-apikey-5ecret';
const JWT_KEY = 'a passphrase of the jwt credential, 32+ bytes long';

/** Every secret a call of this file may carry; none may be shown anywhere. */
export function secretsOf(jwt = ''): string[] {
  return [BASIC_PASSWORD, BASIC_BLOB, HEADER_SECRET, IDENT_SECRET, COOKIE_SECRET, API_KEY_SECRET, QUERY_TOKEN, QUERY_API_KEY, ...(jwt === '' ? [] : [jwt])];
}

export type Guard = 'basic' | 'header' | 'ident' | 'jwt';

function guarded(guard: Guard, authentication: 'basicAuth' | 'headerAuth' | 'jwtAuth'): WorkflowWebhooks {
  return {
    workflowId: `guarded-${guard}`,
    workflowName: `Guarded by ${guard}`,
    nodes: [{
      name: 'Guarded hook',
      parameters: { path: `secrets/${guard}`, httpMethod: 'POST', authentication, responseMode: 'lastNode', responseData: 'allEntries' },
      credentials: { [authentication]: { id: guard, name: `${guard} credential` } },
    }],
  };
}

export const SECRET_WORKFLOWS: WorkflowWebhooks[] = [
  guarded('basic', 'basicAuth'), guarded('header', 'headerAuth'), guarded('ident', 'headerAuth'), guarded('jwt', 'jwtAuth'),
];

/** The host's resolver: the secret of each guarded workflow (the console may use it for header names only). */
export const secretCredentials: CredentialResolver = ({ workflowId }) => {
  switch (workflowId) {
    case 'guarded-basic': return { user: BASIC_USER, password: BASIC_PASSWORD };
    case 'guarded-header': return { name: 'X-Authentication', value: HEADER_SECRET };
    case 'guarded-ident': return { name: 'X-Partner-Ident', value: IDENT_SECRET };
    case 'guarded-jwt': return { keyType: 'passphrase', secret: JWT_KEY, algorithm: 'HS256' };
    default: return undefined;
  }
};

/**
 * The guarded workflows pass the trigger item through, as the guides' examples do, and add an item that repeats the
 * call's secrets inside longer strings: the password decoded from Basic, the Bearer token, the checked headers, the
 * query token in a link. Other workflows run as the console specs' executor runs them.
 */
export const secretEchoExecutor: WebhookExecutor = async (run) => {
  if (!run.workflowId.startsWith('guarded-')) return consoleExecutor(run);
  const json = run.items[0]?.json as { headers: Record<string, string | undefined>; query: Record<string, unknown> };
  const authorization = json.headers.authorization ?? '';
  const password = authorization.startsWith('Basic ') ? Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':')[1] : undefined;
  const echo = {
    note: `The caller signed in with ${password ?? 'no password'}.`,
    bearer: authorization.startsWith('Bearer ') ? `token was ${authorization.slice(7)}` : null,
    header: `checked ${json.headers['x-authentication'] ?? json.headers['x-partner-ident'] ?? 'nothing'}`,
    link: `https://example.com/callback?token=${encodeURIComponent(String(json.query.token ?? ''))}`,
    cookie: `remembered ${/session=([^;]+)/.exec(json.headers.cookie ?? '')?.[1] ?? 'no session'}`,
  };
  return { items: [...run.items, { json: echo }] };
};

export function signedJwt(): Promise<string> {
  return new SignJWT({ sub: 'partner-7' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(JWT_KEY));
}

/** The headers that pass each guard. */
function guardHeaders(guard: Guard, jwt: string): Record<string, string> {
  switch (guard) {
    case 'basic': return { authorization: `Basic ${BASIC_BLOB}` };
    case 'header': return { 'x-authentication': HEADER_SECRET };
    case 'ident': return { 'x-partner-ident': IDENT_SECRET };
    case 'jwt': return { authorization: `Bearer ${jwt}` };
  }
}

/** Sends the call to the guarded workflow's test address; resolves with its answer's status. */
export async function sendSecretCall(testBase: string, guard: Guard, jwt = ''): Promise<number> {
  const form = new FormData();
  form.append('customer', 'Grace');
  form.append('statement', new Blob([Buffer.from('%PDF-1.7 statement')], { type: 'application/pdf' }), `statement-${QUERY_TOKEN}.pdf`);
  const answer = await fetch(`${testBase}/secrets/${guard}?ref=plain&token=${QUERY_TOKEN}&api_key=${QUERY_API_KEY}`, {
    method: 'POST',
    body: form,
    headers: { ...guardHeaders(guard, jwt), cookie: `session=${COOKIE_SECRET}; theme=dark`, 'x-api-key': API_KEY_SECRET, 'x-trace': 'trace-1' },
  });
  await answer.arrayBuffer();
  return answer.status;
}
