/**
 * The node options compiled once at activation (lib/webhooks/registry/node-options.ts): the IP allowlist, the
 * allowed origins of CORS and the response headers. What a value becomes, what is left out and reported, and what
 * refuses the activation with WEBHOOK_INVALID_NODE (never a TypeError from deeper down).
 */
import { expect } from 'chai';
import {
  compileAllowlist, isHeaderName, isHeaderValue, parseAllowedOrigins, resolveResponseHeaders,
} from '../../../lib/webhooks/registry/node-options.js';
import { refusal } from '../../support/refusal.js';


describe('node options', () => {
  describe('IP allowlist', () => {
    it('is absent when the option is empty, null or only commas', () => {
      for (const value of [undefined, '', null, ' , ,']) expect(compileAllowlist('Hook', value), String(value)).to.equal(undefined);
    });

    it('lets in the listed addresses and ranges, ignoring blanks and a trailing comma', () => {
      const allows = compileAllowlist('Hook', ' 10.0.0.0/8 , ,2001:db8::1,');
      expect(allows).to.be.a('function');
      expect(allows?.('10.1.2.3')).to.equal(true);
      expect(allows?.('::ffff:10.0.0.1')).to.equal(true);
      expect(allows?.('2001:db8::1')).to.equal(true);
      expect(allows?.('11.0.0.1')).to.equal(false);
    });

    it('refuses the activation for a value that is not a list of addresses', () => {
      expect(refusal(() => compileAllowlist('Hook', 42))).to.equal('WEBHOOK_INVALID_NODE');
      expect(refusal(() => compileAllowlist('Hook', '10.0.0.1, not-an-ip'))).to.equal('WEBHOOK_INVALID_NODE');
    });
  });

  describe('allowed origins', () => {
    it('means no CORS when blank or not text', () => {
      for (const value of [undefined, '', '   ', 42]) expect(parseAllowedOrigins(value), String(value)).to.equal(undefined);
    });

    it('lists the origins trimmed, without trailing slashes or empty entries', () => {
      expect(parseAllowedOrigins(' https://a.example// ,, https://b.example:8443/ ,')).to.deep.equal(['https://a.example', 'https://b.example:8443']);
    });

    it('is any origin when one entry is a star', () => {
      expect(parseAllowedOrigins('https://a.example, *')).to.equal('*');
    });
  });

  describe('header names and values', () => {
    it('takes a token as a header name and nothing else', () => {
      expect(isHeaderName('X-Order_Id')).to.equal(true);
      expect(isHeaderName('has space')).to.equal(false);
      expect(isHeaderName(42)).to.equal(false);
    });

    it('takes a value without line breaks or control characters, and only text', () => {
      expect(isHeaderValue('a value\twith tab')).to.equal(true);
      expect(isHeaderValue('a\r\nInjected: 1')).to.equal(false);
      expect(isHeaderValue(42)).to.equal(false);
    });
  });

  describe('response headers', () => {
    it('are empty when the option is absent', () => {
      expect(resolveResponseHeaders('Hook', undefined)).to.deep.equal({ headers: {}, dropped: [] });
    });

    it('become lower-cased trimmed names, numbers as text, from entries or a plain object', () => {
      const fromEntries = resolveResponseHeaders('Hook', { entries: [{ name: ' X-Trim ', value: 'v' }, { name: 'X-Count', value: 42 }] });
      expect(fromEntries).to.deep.equal({ headers: { 'x-trim': 'v', 'x-count': '42' }, dropped: [] });
      expect(resolveResponseHeaders('Hook', { 'X-Plain': 'p' })).to.deep.equal({ headers: { 'x-plain': 'p' }, dropped: [] });
    });

    it('keep every Set-Cookie and only the last of another repeated header', () => {
      const { headers } = resolveResponseHeaders('Hook', { entries: [
        { name: 'Set-Cookie', value: 'a=1' }, { name: 'set-cookie', value: 'b=2' }, { name: 'Set-Cookie', value: 'c=3' },
        { name: 'X-Twice', value: 'first' }, { name: 'x-twice', value: 'second' },
      ] });
      expect(headers).to.deep.equal({ 'set-cookie': ['a=1', 'b=2', 'c=3'], 'x-twice': 'second' });
    });

    it("leave out the host's security policy headers and report each name once", () => {
      const resolved = resolveResponseHeaders('Hook', { entries: [
        { name: 'Content-Security-Policy', value: "default-src 'none'" }, { name: 'content-security-policy', value: 'x' },
        { name: 'X-Kept', value: 'k' },
      ] });
      expect(resolved).to.deep.equal({ headers: { 'x-kept': 'k' }, dropped: ['content-security-policy'] });
    });

    it('refuse the activation for a bad shape, name or value, or a header the server owns', () => {
      const bad: [string, unknown][] = [
        ['text', 'X-A: 1'], ['null', null], ['an array', ['X-A: 1']],
        ['a null entry', { entries: [null] }], ['a number as name', { entries: [{ name: 5, value: 'x' }] }],
        ['a name with a space', { entries: [{ name: 'bad name', value: 'x' }] }],
        ['no value', { entries: [{ name: 'x-a' }] }], ['a line break', { entries: [{ name: 'x-a', value: 'a\nb' }] }],
        ['a connection header', { entries: [{ name: 'Connection', value: 'close' }] }],
      ];
      for (const [what, value] of bad) expect(refusal(() => resolveResponseHeaders('Hook', value)), what).to.equal('WEBHOOK_INVALID_NODE');
    });
  });
});
