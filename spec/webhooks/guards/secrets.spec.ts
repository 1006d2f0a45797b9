/**
 * The one redaction of a call's credentials: which names carry one, what a credential's value holds (a Bearer token,
 * Basic's password, each cookie's value), where it is found again (any string, any key, at any depth), how short a
 * secret may be before it is no longer looked for inside other strings, and which header a node's authentication
 * checks.
 */
import { expect } from 'chai';
import { callSecrets, checkedHeaderOf, isSecretName, MIN_MATCHED_LENGTH, redactSecrets } from '../../../lib/webhooks/guards/secrets.js';
import type { Item } from '../../../lib/index.js';

function trigger(json: Record<string, unknown>): Item[] {
  return [{ json: { headers: {}, params: {}, query: {}, body: {}, ...json } }];
}

describe('the redaction of a call\'s credentials', () => {
  it('takes header, query and path parameter names that carry credentials for secret, and ordinary names for not', () => {
    const secret = ['authorization', 'Proxy-Authorization', 'cookie', 'set-cookie', 'x-api-key', 'api_key', 'apikey', 'apiKey', 'key', 'token',
      'access_token', 'accessToken', 'x-gitlab-token', 'secret', 'client_secret', 'password', 'passwd', 'signature', 'x-hub-signature-256', 'sig',
      'session', 'x-session-id', 'auth', 'X-Authentication', 'x-shopify-hmac-sha256', 'jwt', 'credentials'];
    const plain = ['content-type', 'x-request-id', 'user-agent', 'ref', 'keyword', 'author', 'monkey', 'x-forwarded-for', 'orderId', 'page'];
    expect(secret.filter((name) => !isSecretName(name))).to.deep.equal([]);
    expect(plain.filter((name) => isSecretName(name))).to.deep.equal([]);
  });

  it('names the header each authentication checks, from the credential\'s names only', () => {
    expect(checkedHeaderOf('basicAuth', undefined)).to.equal('authorization');
    expect(checkedHeaderOf('jwtAuth', undefined)).to.equal('authorization');
    expect(checkedHeaderOf('headerAuth', { name: 'X-Partner-Ident', value: 'v' })).to.equal('x-partner-ident');
    expect(checkedHeaderOf('headerAuth', undefined)).to.equal(undefined);
    expect(checkedHeaderOf('signatureAuth', { scheme: 'shopify', secret: 's' })).to.equal('x-shopify-hmac-sha256');
    expect(checkedHeaderOf('signatureAuth', { scheme: 'custom', header: 'X-Acme-Signature', secret: 's' })).to.equal('x-acme-signature');
    expect(checkedHeaderOf('none', undefined)).to.equal(undefined);
  });

  it('redacts by name inside headers, query and params at any depth, and leaves other names and the body\'s keys alone', () => {
    const items = trigger({
      headers: { authorization: 'Bearer abc', 'x-trace': 't-1' },
      query: { filter: { api_key: 'k1' }, page: '2' },
      params: { token: 't' },
      body: { key: 'order-1' },
    });
    const shown = redactSecrets(items, callSecrets(items));
    expect(shown[0]?.json).to.deep.equal({
      headers: { authorization: '[redacted]', 'x-trace': 't-1' },
      query: { filter: { api_key: '[redacted]' }, page: '2' },
      params: { token: '[redacted]' },
      body: { key: 'order-1' },
    });
  });

  it('finds a secret again inside any string or key of other data: the whole value, a Bearer token, Basic\'s password, a cookie\'s value', () => {
    const basic = Buffer.from('ada:open-sesame').toString('base64');
    const secrets = callSecrets(trigger({
      headers: { authorization: `Basic ${basic}`, cookie: 'session=cookie-value-1; theme=dark', 'x-api-key': 'Token tok-123456' },
      query: { access_token: 'query/token 7' },
    }));
    const output = {
      said: 'the password is open-sesame, really',
      nested: [{ deeper: `Basic ${basic}` }],
      'cookie-value-1': 'a key that is a secret',
      token: 'tok-123456',
      link: `https://example.com/?t=${encodeURIComponent('query/token 7')}`,
      theme: 'dark',
    };
    expect(redactSecrets(output, secrets)).to.deep.equal({
      said: 'the password is [redacted], really',
      nested: [{ deeper: '[redacted]' }],
      '[redacted]': 'a key that is a secret',
      token: '[redacted]',
      link: 'https://example.com/?t=[redacted]',
      theme: 'dark',
    });
  });

  it(`looks for secrets of ${MIN_MATCHED_LENGTH} characters or more inside other strings, and for shorter ones only where they are a whole string of the checked header`, () => {
    const secrets = callSecrets(trigger({ headers: { 'x-api-key': 'abcde', 'x-shared': 'k9', authorization: 'Basic x' }, query: { token: 'abcdef' } }), 'x-shared');
    expect(redactSecrets({ a: 'abcde in text', b: 'abcdef in text', c: 'k9', d: 'k9 in text', e: 'abcde' }, secrets))
      .to.deep.equal({ a: 'abcde in text', b: '[redacted] in text', c: '[redacted]', d: 'k9 in text', e: 'abcde' });
  });

  it('keeps a key named __proto__ a plain key of the copy, and leaves the data it was given untouched', () => {
    const data = JSON.parse('{"__proto__": {"polluted": "token-value-1"}, "headers": {"authorization": "x"}}') as Record<string, unknown>;
    const shown = redactSecrets(data, callSecrets(trigger({ query: { token: 'token-value-1' } })));
    expect(Object.getPrototypeOf(shown)).to.equal(Object.prototype);
    expect(Object.hasOwn(shown, '__proto__')).to.equal(true);
    expect(JSON.stringify(shown)).to.equal('{"__proto__":{"polluted":"[redacted]"},"headers":{"authorization":"[redacted]"}}');
    expect((data.headers as Record<string, string>).authorization).to.equal('x');
  });
});
