/**
 * What history keeps of a request's body, headers, query and path parameters (kept-json.ts) is exactly what the one
 * redaction function gives, whether it was made by that function or, when the call held nothing it would redact,
 * without it: bodies and parts with credentials by name, by value, in keys, URL-encoded, at any depth, and without.
 */
import { expect } from 'chai';
import type { Item } from '../../../lib/core/types.js';
import { callSecrets, redactSecrets, type CallSecrets } from '../../../lib/webhooks/guards/secrets.js';
import { keptBody, keptRequestParts, type RequestParts } from '../../../lib/webhooks/history/kept-json.js';

const TOKEN = 'kj-bearer-5ecret+token';
const HEADERS = { 'content-type': 'application/json', 'user-agent': 'shop/1.0' };

function secretsOf(json: Record<string, unknown>, checkedHeader?: string): CallSecrets {
  return callSecrets([{ json } as Item], checkedHeader);
}

/** What a kept body holds, read as a value: its value, or its JSON text read back. */
function valueOf(kept: ReturnType<typeof keptBody>): unknown {
  return kept.text === undefined ? kept.value : JSON.parse(kept.text);
}

describe('call history: a kept body and request parts equal what redactSecrets gives', () => {
  const plain = secretsOf({ headers: HEADERS, query: {}, params: {} });
  const bearer = secretsOf({ headers: { ...HEADERS, authorization: `Bearer ${TOKEN}` }, query: {}, params: {} });
  const checked = secretsOf({ headers: { ...HEADERS, 'x-shop': 'kj-checked-value' }, query: {}, params: {} }, 'x-shop');
  // Shorter than what is looked for inside strings: only a string that is exactly it is redacted.
  const shortChecked = secretsOf({ headers: { ...HEADERS, 'x-shop': 'kj12' }, query: {}, params: {} }, 'x-shop');

  const bodies: Array<[string, unknown, CallSecrets]> = [
    ['an order holding nothing to redact', { order: { id: 7, lines: [{ sku: 'A', qty: 1 }], note: 'é "q" \u2028' } }, plain],
    ['an order under a bearer token it does not repeat', { order: { id: 8, status: 'paid' } }, bearer],
    ['a body repeating the bearer token in a string', { order: { note: `paid with ${TOKEN}` } }, bearer],
    ['a body repeating the token URL-encoded', { link: `https://shop.test/?t=${encodeURIComponent(TOKEN)}` }, bearer],
    ['a body using the token as a key', { [TOKEN]: 1 }, bearer],
    ['a body equal to the checked header\'s value', 'kj-checked-value', checked],
    ['a body with a nested query holding a token by name', { forwarded: { query: { access_token: 'kj-q', page: '2' } } }, plain],
    ['a body with headers holding a credential by name', { headers: { authorization: 'x', 'x-api-key': 'y', accept: '*/*' } }, plain],
    ['a body with params holding a credential by name', [{ params: { password: 'p', id: '3' } }], plain],
    ['a body holding the checked header\'s short value as a string', { order: { ref: 'kj12', note: 'kj12 is not redacted inside' } }, shortChecked],
    ['a string body', 'just text', plain],
  ];
  for (const [label, body, secrets] of bodies) {
    it(`keeps ${label} as redactSecrets shows it, and its size`, () => {
      const kept = keptBody(body, 65_536, secrets, undefined);
      const shown = redactSecrets(body, secrets);
      expect(kept.kept).to.equal('whole');
      expect(valueOf(kept)).to.deep.equal(shown);
      expect(kept.size).to.equal(Buffer.byteLength(JSON.stringify(shown)));
    });
  }

  it('keeps the start of a body larger than the cap, cut from the redacted text', () => {
    const body = { note: `${TOKEN} ${'x'.repeat(200)}` };
    const kept = keptBody(body, 50, bearer, undefined);
    expect(kept).to.deep.equal({ kept: 'truncated', value: JSON.stringify(redactSecrets(body, bearer)).slice(0, 50), size: JSON.stringify(redactSecrets(body, bearer)).length });
  });

  const parts: Array<[string, Record<string, unknown>, string | undefined]> = [
    ['plain headers, query and params', { headers: HEADERS, query: { page: '2' }, params: { id: '7' } }, undefined],
    ['a credential header by name', { headers: { ...HEADERS, 'x-api-key': 'kj-key-value' }, query: {}, params: {} }, undefined],
    ['the header the node checked, of an innocent name', { headers: { ...HEADERS, 'x-shop': 'kj-checked-value' }, query: {}, params: {} }, 'x-shop'],
    ['a query parameter named like a token', { headers: HEADERS, query: { access_token: 'kj-query-token' }, params: {} }, undefined],
    ['a nested query holding a token', { headers: HEADERS, query: { filter: { token: 'kj-nested-token' } }, params: {} }, undefined],
    ['a header sent twice', { headers: { ...HEADERS, 'x-forwarded-for': ['127.0.0.1', '127.0.0.2'] }, query: {}, params: {} }, undefined],
    ['a path parameter named like a credential', { headers: HEADERS, query: {}, params: { token: 'kj-path-token' } }, undefined],
    // An empty value holds no secret to look for, and is still redacted by its name.
    ['an empty credential header', { headers: { ...HEADERS, 'x-api-key': '' }, query: {}, params: {} }, undefined],
    ['the checked header, empty', { headers: { ...HEADERS, 'x-shop': '' }, query: {}, params: {} }, 'x-shop'],
    ['an empty query parameter named like a token', { headers: HEADERS, query: { access_token: '' }, params: {} }, undefined],
  ];
  for (const [label, json, checkedHeader] of parts) {
    it(`keeps ${label} as redactSecrets shows them, as a copy`, () => {
      const secrets = secretsOf(json, checkedHeader);
      const kept = keptRequestParts(json as RequestParts, secrets);
      expect(kept).to.deep.equal(redactSecrets(json, secrets));
      expect(kept.headers).not.to.equal(json.headers);
    });
  }
});
