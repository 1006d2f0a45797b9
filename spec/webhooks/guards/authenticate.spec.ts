/**
 * authenticate() itself, called with a request's headers and the credential a host's resolver gives: which
 * Authorization headers are refused and how (401 with a challenge, 403), which incomplete credentials are the host's
 * configuration error (500 AUTH_NOT_CONFIGURED) and never a pass, and which header the check names for redaction.
 * Every credential is a new object, as a resolver reading a store returns, so nothing is answered from a cache.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { SignJWT } from 'jose';
import { createWebhookMiddleware, MemoryWebhookRegistry, WebhookError, type WebhookCredential } from '../../../lib/index.js';
import { authenticate, type AuthOutcome } from '../../../lib/webhooks/guards/authenticate.js';
import type { RegisteredWebhook } from '../../../lib/webhooks/registry/contract.js';
import { InProcessReplayMemory } from '../../../lib/webhooks/registry/message-ids.js';
import { listen, pipelined } from '../../support/raw-http.js';

type Method = 'basicAuth' | 'headerAuth' | 'jwtAuth';

const SECRET = 'a-long-shared-secret-for-tests-only';
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUBLIC_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const hmacKey = new TextEncoder().encode(SECRET);

const basic = (text: string): string => `Basic ${Buffer.from(text).toString('base64')}`;
const sign = (alg: string, key: Uint8Array | typeof privateKey): Promise<string> =>
  new SignJWT({ sub: 'user-7' }).setProtectedHeader({ alg }).setIssuedAt().setExpirationTime('5m').sign(key);

function check(authentication: Method, credential: unknown, headers: Record<string, string>, resolve = true): Promise<AuthOutcome> {
  const webhook = { workflowId: 'w1', nodeName: 'Webhook', credentials: { id: 'c1' }, parameters: { authentication } } as unknown as RegisteredWebhook;
  const resolver = resolve ? () => structuredClone(credential) as WebhookCredential : undefined;
  return authenticate({ headers } as unknown as IncomingMessage, webhook, resolver, new InProcessReplayMemory());
}

/** The refusal a call gets: its code, status, message and challenge. */
async function refusal(outcome: Promise<AuthOutcome>): Promise<{ code: string; status: number; message: string; challenge: string | undefined }> {
  const error = await outcome.then(() => undefined, (thrown: unknown) => thrown);
  expect(error, 'the call was let through').to.be.instanceOf(WebhookError);
  const { code, status, message, headers } = error as WebhookError;
  return { code, status, message, challenge: headers['www-authenticate'] };
}

const BASIC = { user: 'ada', password: 'lovelace' };
const BASIC_CHALLENGE = 'Basic realm="Webhook", charset="UTF-8"';

describe('authenticate()', () => {
  describe('basicAuth', () => {
    it('lets the right user and password through, however much space follows the scheme, and names Authorization as the checked header', async () => {
      expect(await check('basicAuth', BASIC, { authorization: basic('ada:lovelace') })).to.deep.equal({ checkedHeader: 'authorization', caller: 'basic:ada' });
      expect(await check('basicAuth', BASIC, { authorization: `Basic   ${Buffer.from('ada:lovelace').toString('base64')}` })).to.deep.equal({ checkedHeader: 'authorization', caller: 'basic:ada' });
    });

    it('keeps everything after the first colon as the password, colons included', async () => {
      expect(await check('basicAuth', { user: 'ada', password: 'love:lace' }, { authorization: basic('ada:love:lace') })).to.deep.equal({ checkedHeader: 'authorization', caller: 'basic:ada' });
      expect((await refusal(check('basicAuth', BASIC, { authorization: basic('ada:love:lace') }))).code).to.equal('AUTH_INVALID');
    });

    it('answers credentials without the colon between user and password as no credentials: 401 with the Basic challenge', async () => {
      for (const decoded of ['adalovelace', 'ada', '']) {
        expect(await refusal(check('basicAuth', { user: 'adalovelace', password: '' }, { authorization: basic(decoded) })), decoded).to.deep.equal({
          code: 'AUTH_REQUIRED', status: 401, message: 'Authorization is required.', challenge: BASIC_CHALLENGE,
        });
      }
    });

    it('answers a header that is not exactly Basic and base64 with 401 and the challenge, not as credentials', async () => {
      const token = Buffer.from('ada:lovelace').toString('base64');
      for (const authorization of [`xBasic ${token}`, `Basic ${token}!!`, `Basic abc!!`, `Basic ${token} extra`, `Bearer ${token}`, `Basic${token}`]) {
        expect(await refusal(check('basicAuth', BASIC, { authorization })), authorization).to.include({ code: 'AUTH_REQUIRED', status: 401, challenge: BASIC_CHALLENGE });
      }
    });

    it('answers a wrong user or a wrong password 403 AUTH_INVALID', async () => {
      for (const pair of ['bob:lovelace', 'ada:wrong', 'ada:', ':lovelace']) {
        expect(await refusal(check('basicAuth', BASIC, { authorization: basic(pair) })), pair).to.deep.equal({
          code: 'AUTH_INVALID', status: 403, message: 'Authorization data is wrong!', challenge: undefined,
        });
      }
    });

    it('answers 500 AUTH_NOT_CONFIGURED for a credential without a user or a password, whatever the call sends', async () => {
      for (const credential of [{ user: 'ada' }, { password: 'lovelace' }, {}, { user: 'ada', password: 7 }]) {
        for (const authorization of [basic('ada:lovelace'), basic('ada:'), basic(':lovelace'), basic('undefined:undefined')]) {
          expect((await refusal(check('basicAuth', credential, { authorization }))).code, JSON.stringify(credential)).to.equal('AUTH_NOT_CONFIGURED');
        }
      }
    });
  });

  describe('headerAuth', () => {
    const HEADER = { name: 'X-Api-Key', value: 'k-123' };

    it('lets the right value through and names the credential\'s header, in lower case, as the checked one', async () => {
      expect(await check('headerAuth', HEADER, { 'x-api-key': 'k-123' })).to.deep.equal({ checkedHeader: 'x-api-key', caller: 'header:x-api-key' });
    });

    it('answers 500 AUTH_NOT_CONFIGURED for a credential without a name or a value, whatever the call sends', async () => {
      const sent = { 'x-api-key': 'k-123', '': 'k-123', undefined: 'k-123', 'stryker was here!': 'k-123' };
      for (const credential of [{ value: 'k-123' }, { name: '', value: 'k-123' }, { name: 'X-Api-Key' }, { name: 'X-Api-Key', value: 123 }, { name: 7, value: 'k-123' }]) {
        expect((await refusal(check('headerAuth', credential, sent))).code, JSON.stringify(credential)).to.equal('AUTH_NOT_CONFIGURED');
      }
    });
  });

  describe('jwtAuth', () => {
    it('verifies HS256 for a passphrase and RS256 for a public key when the credential names no algorithm, and never the other way round', async () => {
      const hs256 = `Bearer ${await sign('HS256', hmacKey)}`;
      const rs256 = `Bearer ${await sign('RS256', privateKey)}`;
      const passphrase = { keyType: 'passphrase', secret: SECRET };
      const pemKey = { keyType: 'pemKey', publicKey: PUBLIC_PEM };
      expect(await check('jwtAuth', passphrase, { authorization: hs256 })).to.have.nested.property('jwtPayload.sub', 'user-7');
      expect(await check('jwtAuth', pemKey, { authorization: rs256 })).to.have.nested.property('jwtPayload.sub', 'user-7');
      // A token signed with HMAC over the public key's text must never pass as the key's own.
      const confused = `Bearer ${await sign('HS256', new TextEncoder().encode(PUBLIC_PEM))}`;
      expect((await refusal(check('jwtAuth', pemKey, { authorization: confused }))).code).to.equal('AUTH_INVALID');
      expect((await refusal(check('jwtAuth', passphrase, { authorization: rs256 }))).code).to.equal('AUTH_INVALID');
    });

    it('takes the token after any amount of space, and names Authorization as the checked header', async () => {
      const outcome = await check('jwtAuth', { keyType: 'passphrase', secret: SECRET, algorithm: ['HS256'] }, { authorization: `bearer    ${await sign('HS256', hmacKey)}` });
      expect(outcome).to.include({ checkedHeader: 'authorization', caller: 'jwt:[null,"user-7"]' });
    });

    it('answers a header that is not exactly Bearer and one token with 401 and the Bearer challenge', async () => {
      const token = await sign('HS256', hmacKey);
      for (const authorization of [`xBearer ${token}`, `Bearer ${token} ${token}`, 'Bearer a b', `Bearer${token}`, `Basic ${token}`]) {
        expect(await refusal(check('jwtAuth', { keyType: 'passphrase', secret: SECRET }, { authorization })), authorization)
          .to.include({ code: 'AUTH_REQUIRED', status: 401, challenge: 'Bearer realm="Webhook"' });
      }
    });

    it('says a token with a wrong signature is wrong, not that it expired', async () => {
      const forged = await sign('HS256', new TextEncoder().encode('another-secret-of-some-length'));
      expect(await refusal(check('jwtAuth', { keyType: 'passphrase', secret: SECRET }, { authorization: `Bearer ${forged}` }))).to.deep.equal({
        code: 'AUTH_INVALID', status: 403, message: 'Authorization data is wrong!', challenge: undefined,
      });
    });

    it('answers 500 AUTH_NOT_CONFIGURED for a credential without a secret, a readable key or any allowed algorithm', async () => {
      const token = `Bearer ${await sign('HS256', hmacKey)}`;
      const broken = [
        { keyType: 'passphrase', secret: '' },
        { keyType: 'passphrase' },
        { keyType: 'passphrase', secret: SECRET, algorithm: [] },
        { keyType: 'passphrase', secret: SECRET, algorithm: ['HS256', 'none'] },
        { keyType: 'passphrase', secret: SECRET, algorithm: [256] },
        { keyType: 'pemKey', publicKey: 'not a key' },
        { keyType: 'pemKey' },
      ];
      for (const credential of broken) {
        expect((await refusal(check('jwtAuth', credential, { authorization: token }))).code, JSON.stringify(credential)).to.equal('AUTH_NOT_CONFIGURED');
      }
    });
  });

  it('answers 500 AUTH_NOT_CONFIGURED when the host gives no credentials resolver at all', async () => {
    expect((await refusal(check('basicAuth', BASIC, { authorization: basic('ada:lovelace') }, false))).code).to.equal('AUTH_NOT_CONFIGURED');
  });
});

/**
 * The same cases on a real node:http server, calls pipelined on one connection (the unit specs above hand-build the
 * request): each call is let through or refused by its own Authorization or key header, in order, and a refusal
 * leaves the connection to the calls after it.
 */
describe('authentication on a real node:http server, calls pipelined on one connection', () => {
  it('answers each pipelined call by its own credentials: through, 401 with the challenge, or 403', async () => {
    const registry = new MemoryWebhookRegistry();
    const node = (path: string, authentication: Method) => ({ name: 'Webhook', credentials: { ref: path }, parameters: { path, httpMethod: 'GET' as const, authentication, responseMode: 'lastNode' as const } });
    await registry.activate({ workflowId: 'basic', nodes: [node('basic', 'basicAuth')] });
    await registry.activate({ workflowId: 'header', nodes: [node('header', 'headerAuth')] });
    const credentials: Record<string, WebhookCredential> = { basic: { user: 'ada', password: 'love:lace' }, header: { name: 'X-Api-Key', value: 'k-123' } };
    const middleware = createWebhookMiddleware(registry, () => ({ items: [{ json: { through: true } }] }), {
      credentials: ({ credentials: ref }) => structuredClone(credentials[(ref as { ref: string }).ref]) as WebhookCredential,
    });
    const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    try {
      const get = (path: string, header: string): string => `GET /webhook/${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}\r\n`;
      const answers = await pipelined(running.port, [
        get('basic', `Authorization: Basic   ${Buffer.from('ada:love:lace').toString('base64')}\r\n`),
        get('basic', `Authorization: ${basic('ada')}\r\n`),
        get('basic', `Authorization: ${basic('ada:love')}\r\n`),
        get('basic', `Authorization: x${basic('ada:love:lace')}\r\n`),
        get('header', 'X-Api-Key: k-123\r\n'),
        get('header', 'X-Api-Key: k-124\r\n'),
        get('basic', ''),
      ]);
      expect(answers.map(({ status, headers, body }) => [status, body.code ?? body.through, headers['www-authenticate']])).to.deep.equal([
        [200, true, undefined],
        [401, 'AUTH_REQUIRED', BASIC_CHALLENGE],
        [403, 'AUTH_INVALID', undefined],
        [401, 'AUTH_REQUIRED', BASIC_CHALLENGE],
        [200, true, undefined],
        [403, 'AUTH_INVALID', undefined],
        [401, 'AUTH_REQUIRED', BASIC_CHALLENGE],
      ]);
    } finally {
      await running.close();
    }
  });
});
