/**
 * Whose budget a call spends: a caller address stands for one caller whichever way it is written (IPv4-mapped IPv6 is
 * IPv4; IPv6 counts by its /56, since one subscriber holds a whole prefix), and what reaches the store is a digest
 * bound to the address and policy, never the value itself.
 */
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { callerBudget, digest, ipKeyOf, normalisedValue } from '../../../lib/webhooks/rate-limit/caller-key.js';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { listen, pipelined } from '../../support/raw-http.js';
import { workflow } from '../../support/workflows.js';

const fakeCall = (headers: Record<string, string | string[]>, remoteAddress = '127.0.0.1'): IncomingMessage =>
  ({ headers, socket: { remoteAddress } }) as unknown as IncomingMessage;

describe('the caller key of a rate limit', () => {
  it('reads an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(ipKeyOf('::ffff:203.0.113.7', 56)).to.equal('203.0.113.7');
    expect(ipKeyOf('203.0.113.7', 56)).to.equal('203.0.113.7');
  });

  it('counts IPv6 callers by their prefix, however the address is written', () => {
    const one = ipKeyOf('2001:db8:abcd:12ff::1', 56);
    expect(one).to.equal('2001:db8:abcd:1200:0:0:0:0/56');
    for (const same of ['2001:0db8:abcd:12aa:ffff:ffff:ffff:ffff', '2001:DB8:ABCD:1200::', '2001:db8:abcd:1234:0:0:1.2.3.4', '2001:db8:abcd:12ff::1%eth0']) {
      expect(ipKeyOf(same, 56), same).to.equal(one);
    }
    expect(ipKeyOf('2001:db8:abcd:1300::1', 56)).to.not.equal(one);
    expect(ipKeyOf('2001:db8:abcd:12ff::1', 64)).to.equal('2001:db8:abcd:12ff:0:0:0:0/64');
    expect(ipKeyOf('2001:db8::1', 128)).to.equal('2001:db8:0:0:0:0:0:1/128');
    expect(ipKeyOf('::1', 56)).to.equal('0:0:0:0:0:0:0:0/56');
  });

  it('keeps what is not an IPv6 address as written', () => {
    expect(ipKeyOf('2001:db8::1::2', 56)).to.equal('2001:db8::1::2');
    expect(ipKeyOf('', 56)).to.equal('');
  });

  it('gives each header value its own budget, one budget to every call without it, and never the value itself', () => {
    const key = 'sk_live_0123456789abcdef';
    const budget = callerBudget('scope', 'x-api-key', fakeCall({ 'x-api-key': key }), { proxyHops: 0, ipv6Prefix: 56 }, undefined);
    expect(budget).to.match(/^[\w-]{22}$/).and.not.include(key.slice(0, 6));
    expect(callerBudget('scope', 'x-api-key', fakeCall({ 'x-api-key': 'another' }), { proxyHops: 0, ipv6Prefix: 56 }, undefined)).to.not.equal(budget);
    const without = callerBudget('scope', 'x-api-key', fakeCall({}), { proxyHops: 0, ipv6Prefix: 56 }, undefined);
    expect(callerBudget('scope', 'x-api-key', fakeCall({ 'x-api-key': '' }), { proxyHops: 0, ipv6Prefix: 56 }, undefined)).to.equal(without);
    expect(callerBudget('other scope', 'x-api-key', fakeCall({ 'x-api-key': key }), { proxyHops: 0, ipv6Prefix: 56 }, undefined)).to.not.equal(budget);
  });

  it('reads the caller through the trusted proxies only', () => {
    const settings = { proxyHops: 0, ipv6Prefix: 56 };
    const spoofed = callerBudget('scope', 'ip', fakeCall({ 'x-forwarded-for': '198.51.100.9' }), settings, undefined);
    expect(spoofed).to.equal(digest('scope', 'ip', '127.0.0.1'));
    expect(callerBudget('scope', 'ip', fakeCall({ 'x-forwarded-for': '198.51.100.9' }), { ...settings, proxyHops: 1 }, undefined)).to.equal(digest('scope', 'ip', '198.51.100.9'));
  });

  it('counts the header the guard checked by the caller it verified, and any other header by its normalised value', () => {
    const settings = { proxyHops: 0, ipv6Prefix: 56 };
    const verified = { checkedHeader: 'authorization', caller: 'basic:ops' };
    const one = callerBudget('scope', 'authorization', fakeCall({ authorization: 'Basic b3BzOnNlY3JldA==' }), settings, verified);
    expect(one).to.equal(digest('scope', 'caller', 'basic:ops'));
    expect(callerBudget('scope', 'authorization', fakeCall({ authorization: 'bAsIc  b3BzOnNlY3JldA' }), settings, verified)).to.equal(one);
    expect(callerBudget('scope', 'x-tenant', fakeCall({ 'x-tenant': 'a' }), settings, verified)).to.equal(digest('scope', 'header', 'a'));
    expect(normalisedValue('authorization', 'BASIC\tb3BzOnNlY3JldA===')).to.equal('basic b3BzOnNlY3JldA==');
    expect(normalisedValue('authorization', 'Bearer   abc.def.ghi ')).to.equal('bearer abc.def.ghi');
    expect(normalisedValue('x-api-key', ' Key-1 ')).to.equal('Key-1');
  });
});

/**
 * The same cases on a real node:http server, calls pipelined on one connection (the unit specs above hand-build the
 * request and its socket): a budget of one call per caller, so the second call of a caller is 429 whichever way it
 * wrote its key or address, and another caller's first call goes through.
 */
describe('the caller key of a rate limit on a real node:http server, calls pipelined on one connection', () => {
  it('charges a key sent again, an empty key, a mapped or re-written address to the caller it stands for', async () => {
    const registry = new MemoryWebhookRegistry();
    const once = (key: string) => ({ settings: { rateLimit: { limit: 1, windowMs: 60_000, key } } });
    await registry.activate(workflow('by-key', { path: 'by-key', httpMethod: 'GET' }, once('X-Api-Key')));
    await registry.activate(workflow('by-ip', { path: 'by-ip', httpMethod: 'GET' }, once('ip')));
    const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), { proxyHops: 1, logger: { error: () => undefined, warn: () => undefined } });
    const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    try {
      const get = (path: string, header: string): string => `GET /webhook/${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}\r\n`;
      const answers = await pipelined(running.port, [
        get('by-key', 'X-Api-Key: key-a\r\n'), get('by-key', 'X-Api-Key:   key-a  \r\n'), get('by-key', 'X-Api-Key: key-b\r\n'),
        get('by-key', ''), get('by-key', 'X-Api-Key:\r\n'),
        get('by-ip', 'X-Forwarded-For: 198.51.100.9\r\n'), get('by-ip', 'X-Forwarded-For: ::ffff:198.51.100.9\r\n'),
        get('by-ip', 'X-Forwarded-For: 2001:db8:abcd:12ff::1\r\n'), get('by-ip', 'X-Forwarded-For: 2001:DB8:ABCD:1200::\r\n'),
        get('by-ip', 'X-Forwarded-For: 2001:db8:abcd:1300::1\r\n'),
      ]);
      expect(answers.map((answer) => answer.status)).to.deep.equal([200, 429, 200, 200, 429, 200, 429, 200, 429, 200]);
    } finally {
      await running.close();
    }
  });
});
