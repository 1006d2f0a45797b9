/**
 * The redaction of a call's credentials, in the cases a caller's data takes beyond the plain ones of secrets.spec.ts:
 * camelCase and plural names, what each cookie and Basic's password hold, numbers and lists as values, overlapping
 * secrets (the longest replaced first, so no tail of one is left), the checked header by name, and values that are
 * not strings.
 */
import { expect } from 'chai';
import { callSecrets, checkedHeaderOf, isSecretName, redactSecrets } from '../../../lib/webhooks/guards/secrets.js';
import type { Item } from '../../../lib/index.js';

function trigger(json: Record<string, unknown>): Item[] {
  return [{ json: { headers: {}, params: {}, query: {}, body: {}, ...json } }];
}

describe('the redaction of a call\'s credentials, by value', () => {
  it('takes camelCase, plural and run-together names for secret', () => {
    const secret = ['authHeader', 'apiKeyId', 'sessionToken', 'tokens', 'x-api-keys', 'secrets', 'passwords', 'sessions', 'cookies',
      'accesstoken', 'xapikey', 'clientsecret', 'refreshTokens', 'userPassword', 'X-Auth-Token'];
    const plain = ['authors', 'keywords', 'monkeys', 'sessional', 'x-trace-ids', 'statuses', 'address', 'orderIds'];
    expect(secret.filter((name) => !isSecretName(name))).to.deep.equal([]);
    expect(plain.filter((name) => isSecretName(name))).to.deep.equal([]);
  });

  it('names no checked header for a credential without a header name', () => {
    expect(checkedHeaderOf('headerAuth', { name: '', value: 'v' })).to.equal(undefined);
    expect(checkedHeaderOf('headerAuth', { name: 7, value: 'v' })).to.equal(undefined);
    expect(checkedHeaderOf('signatureAuth', undefined)).to.equal(undefined);
    expect(checkedHeaderOf('signatureAuth', { scheme: 'custom', header: '' })).to.equal(undefined);
  });

  it('hides each cookie\'s value, quoted or not and after any spaces, but not the names or a pair without a value', () => {
    const secrets = callSecrets(trigger({ headers: { cookie: 'a=first-cookie-val ;   q="quoted-cookie-val"; remember; raw=x"inner-quoted"' } }));
    const output = {
      first: 'one is first-cookie-val',
      second: 'quoted-cookie-val is two',
      inner: 'x"inner-quoted" is three',
      kept: 'remember me, q and raw',
    };
    expect(redactSecrets(output, secrets)).to.deep.equal({
      first: 'one is [redacted]',
      second: '[redacted] is two',
      inner: '[redacted] is three',
      kept: 'remember me, q and raw',
    });
  });

  it('hides the cookie Set-Cookie sets, not its attributes', () => {
    const secrets = callSecrets(trigger({ headers: { 'set-cookie': 'sid=set-cookie-secret; Path=/orders; Domain=shop.example.com' } }));
    expect(redactSecrets({ a: 'set-cookie-secret here', b: 'shop.example.com and /orders' }, secrets))
      .to.deep.equal({ a: '[redacted] here', b: 'shop.example.com and /orders' });
  });

  it('reads a cookie only from a header named Cookie, not from a query parameter of that name', () => {
    const secrets = callSecrets(trigger({ query: { cookie: 'sid=query-cookie-val' } }));
    expect(redactSecrets({ whole: 'sid=query-cookie-val', part: 'query-cookie-val alone' }, secrets))
      .to.deep.equal({ whole: '[redacted]', part: 'query-cookie-val alone' });
  });

  it('hides Basic\'s password, whatever the length of the user, and a token after several spaces', () => {
    const basic = Buffer.from('a:short-user-password').toString('base64');
    const secrets = callSecrets(trigger({ headers: { authorization: `Basic ${basic}`, 'x-api-key': 'Token   tok-multi-space' } }));
    expect(redactSecrets({ pw: 'short-user-password leaked', tok: 'tok-multi-space leaked' }, secrets))
      .to.deep.equal({ pw: '[redacted] leaked', tok: '[redacted] leaked' });
  });

  it('hides secrets given as numbers, lists and objects, and a value padded with spaces', () => {
    const secrets = callSecrets(trigger({ query: { token: ['list-secret-1', 'list-secret-2'], api_key: 12345678, secret: { inner: 'object-secret' }, password: '  padded-secret  ' } }));
    expect(redactSecrets({ said: 'list-secret-1, list-secret-2, 12345678, object-secret and padded-secret' }, secrets))
      .to.deep.equal({ said: '[redacted], [redacted], [redacted], [redacted] and [redacted]' });
  });

  it('replaces the longest secret first, so that no part of one that contains another is left showing', () => {
    const secrets = callSecrets(trigger({ headers: { 'x-api-key': 'shared-prefix' }, query: { token: 'shared-prefix-and-tail' } }));
    expect(redactSecrets({ a: 'shared-prefix-and-tail', b: 'shared-prefix' }, secrets)).to.deep.equal({ a: '[redacted]', b: '[redacted]' });
  });

  it('leaves empty strings alone, even when the checked header was empty', () => {
    const secrets = callSecrets(trigger({ headers: { 'x-shared': '' } }), 'x-shared');
    expect(redactSecrets({ empty: '', other: 'text' }, secrets)).to.deep.equal({ empty: '', other: 'text' });
  });

  it('redacts the checked header by its name in any case, even where its value was not seen, and not a query parameter of that name', () => {
    const secrets = callSecrets(trigger({}), 'X-Partner-Ident');
    const shown = redactSecrets({ headers: { 'X-Partner-Ident': 'p', 'x-trace': 't' }, query: { 'x-partner-ident': 'visible' } }, secrets);
    expect(shown).to.deep.equal({ headers: { 'X-Partner-Ident': '[redacted]', 'x-trace': 't' }, query: { 'x-partner-ident': 'visible' } });
  });

  it('leaves the values of ordinary names alone, however long, wherever they appear again', () => {
    const secrets = callSecrets(trigger({ headers: { 'x-request-id': 'req-0123456789', 'user-agent': 'curl/8.0.1' }, query: { orderId: 'order-98765' } }));
    expect(secrets.contained).to.deep.equal([]);
    expect(redactSecrets({ said: 'req-0123456789 from curl/8.0.1 for order-98765' }, secrets)).to.deep.equal({ said: 'req-0123456789 from curl/8.0.1 for order-98765' });
  });

  it('keeps numbers, booleans and null as they are, and takes items without headers, query or params, or with empty secrets', () => {
    const secrets = callSecrets([{ json: {} }, { json: { headers: null, query: 'text', params: ['p'] } } as unknown as Item, ...trigger({ query: { token: null, secret: false } })]);
    expect(secrets.contained).to.deep.equal([]);
    expect(redactSecrets({ n: 5, b: true, z: null, list: [1, null] }, secrets)).to.deep.equal({ n: 5, b: true, z: null, list: [1, null] });
  });
});
