/**
 * checkSignature() itself, with the headers each sender writes: the edge of the timestamp tolerance (exactly on it
 * passes, a second past it does not), malformed headers refused as invalid rather than missing, the parts of a
 * header that are not ours to check, millisecond timestamps, and the credential's own mistakes (500). The clock is
 * set by the test, so the edge is exact.
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry, WebhookError, type SignatureAuthCredential, type VerifiedSignature } from '../../../lib/index.js';
import { checkSignature } from '../../../lib/webhooks/guards/signature.js';
import { InProcessReplayMemory } from '../../../lib/webhooks/registry/message-ids.js';
import { listen, pipelined } from '../../support/raw-http.js';
import { credentialOf, SECRETS, signedHeaders, type Scheme } from '../../support/signers.js';

const BODY = JSON.stringify({ id: 'evt_1', type: 'order.paid' });
const NOW = 1_790_000_000;

/** The check of a call with `headers` and BODY, at NOW on the server's clock: what was verified, or the refusal's code. */
async function outcome(credential: SignatureAuthCredential, headers: Record<string, string>, clock = NOW): Promise<VerifiedSignature | string> {
  const realNow = Date.now;
  Date.now = () => clock * 1000;
  try {
    const req = { headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])) } as unknown as IncomingMessage;
    const pending = checkSignature(req, credential, { replay: new InProcessReplayMemory(), workflowId: 'w1', nodeName: 'Signed' });
    return await pending.verify(Buffer.from(BODY));
  } catch (error) {
    expect(error).to.be.instanceOf(WebhookError);
    return (error as WebhookError).code;
  } finally {
    Date.now = realNow;
  }
}

describe('checkSignature()', () => {
  it('accepts a timestamp exactly at the tolerance either way, and refuses one a second past it', async () => {
    for (const scheme of ['slack', 'stripe', 'standardWebhooks', 'custom'] as const) {
      const headers = await signedHeaders(scheme, BODY, { at: NOW, messageId: `msg_${scheme}` });
      expect(await outcome(credentialOf(scheme), headers, NOW + 300), scheme).to.include({ scheme, timestamp: NOW });
      expect(await outcome(credentialOf(scheme), headers, NOW - 300), scheme).to.include({ scheme, timestamp: NOW });
      expect(await outcome(credentialOf(scheme), headers, NOW + 301), scheme).to.equal('SIGNATURE_EXPIRED');
      expect(await outcome(credentialOf(scheme), headers, NOW - 301), scheme).to.equal('SIGNATURE_EXPIRED');
    }
  });

  it('reads a timestamp written in milliseconds as such', async () => {
    const headers = await signedHeaders('slack', BODY, { at: NOW * 1000 + 123 });
    expect(await outcome(credentialOf('slack'), headers)).to.deep.equal({ scheme: 'slack', timestamp: NOW });
  });

  it('says nothing of a timestamp for a scheme that signs none', async () => {
    expect(await outcome(credentialOf('github'), await signedHeaders('github', BODY))).to.deep.equal({ scheme: 'github' });
  });

  it('refuses a malformed signature header as invalid (403), not as missing, nor as expired when its timestamp is old', async () => {
    const slack = await signedHeaders('slack', BODY, { at: NOW });
    const stripe = await signedHeaders('stripe', BODY, { at: NOW });
    const malformed: [SignatureAuthCredential, Record<string, string>][] = [
      [credentialOf('github'), { 'x-hub-signature-256': `sha1=${'ab'.repeat(20)}` }],
      [credentialOf('github'), { 'x-hub-signature-256': 'sha256=not-hex' }],
      [credentialOf('slack'), { ...slack, 'x-slack-signature': (slack['x-slack-signature'] ?? '').replace('v0=', 'v1=') }],
      [credentialOf('slack'), { ...slack, 'x-slack-request-timestamp': 'yesterday' }],
      [credentialOf('stripe'), { 'stripe-signature': `t=${NOW - 3600}` }],
      [credentialOf('stripe'), { 'stripe-signature': (stripe['stripe-signature'] ?? '').replace(/t=\d+,?/, '') }],
      [credentialOf('standardWebhooks'), { 'webhook-id': 'msg_1', 'webhook-timestamp': String(NOW - 3600), 'webhook-signature': 'v1a,abcd' }],
    ];
    for (const [credential, headers] of malformed) expect(await outcome(credential, headers), JSON.stringify(headers)).to.equal('SIGNATURE_INVALID');
  });

  it('ignores the parts of a header it does not check: other Standard Webhooks versions, other Stripe schemes, and takes Stripe\'s parts in any order', async () => {
    const standard = await signedHeaders('standardWebhooks', BODY, { at: NOW, messageId: 'msg_versions' });
    const withOther = { ...standard, 'webhook-signature': `v1a,${'A'.repeat(86)}== ${standard['webhook-signature'] ?? ''}` };
    expect(await outcome(credentialOf('standardWebhooks'), withOther)).to.include({ scheme: 'standardWebhooks', messageId: 'msg_versions' });
    const stripe = (await signedHeaders('stripe', BODY, { at: NOW }))['stripe-signature'] ?? '';
    const [t, v1] = stripe.split(',');
    expect(await outcome(credentialOf('stripe'), { 'stripe-signature': `${v1 ?? ''},${t ?? ''}` })).to.deep.equal({ scheme: 'stripe', timestamp: NOW });
    expect(await outcome(credentialOf('stripe'), { 'stripe-signature': `${stripe},v0=test_mode_only` })).to.deep.equal({ scheme: 'stripe', timestamp: NOW });
  });

  it('takes a Standard Webhooks secret with or without its whsec_ prefix, and refuses one that is not base64 as the host\'s error', async () => {
    const headers = await signedHeaders('standardWebhooks', BODY, { at: NOW, messageId: 'msg_prefix' });
    const bare = SECRETS.standardWebhooks.slice('whsec_'.length);
    expect(await outcome({ scheme: 'standardWebhooks', secret: bare }, headers)).to.include({ scheme: 'standardWebhooks' });
    expect(await outcome({ scheme: 'standardWebhooks', secret: 'whsec_not base64!' }, headers)).to.equal('AUTH_NOT_CONFIGURED');
  });

  it('answers 500 AUTH_NOT_CONFIGURED for a tolerance of zero, or one that is not a finite number of seconds', async () => {
    const headers = await signedHeaders('slack', BODY, { at: NOW });
    for (const toleranceSeconds of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(await outcome({ ...credentialOf('slack'), toleranceSeconds }, headers), String(toleranceSeconds)).to.equal('AUTH_NOT_CONFIGURED');
    }
  });

  it('checks a custom scheme by its defaults: HMAC-SHA256 in hex without a prefix, over the body, or over "{timestamp}.{body}" with a timestamp header', async () => {
    const hmac = (content: string): string => createHmac('sha256', 'custom-secret').update(content).digest('hex');
    const plain: SignatureAuthCredential = { scheme: 'custom', secret: 'custom-secret', header: 'X-Sig' };
    expect(await outcome(plain, { 'x-sig': hmac(BODY) })).to.deep.equal({ scheme: 'custom' });
    const timed: SignatureAuthCredential = { ...plain, timestampHeader: 'X-Time' };
    expect(await outcome(timed, { 'x-sig': hmac(`${NOW}.${BODY}`), 'x-time': String(NOW) })).to.deep.equal({ scheme: 'custom', timestamp: NOW });
    expect(await outcome(timed, { 'x-sig': hmac(BODY), 'x-time': String(NOW) })).to.equal('SIGNATURE_INVALID');
    // A template that names {timestamp} without a timestamp header signs it as empty text.
    expect(await outcome({ ...plain, signedContent: '{timestamp}|{body}' }, { 'x-sig': hmac(`|${BODY}`) })).to.deep.equal({ scheme: 'custom' });
  });

  it('answers 500 AUTH_NOT_CONFIGURED for a custom credential with another algorithm or encoding, or a timestamp header that is no header name', async () => {
    const headers = { 'x-sig': createHmac('md5', 'custom-secret').update(BODY).digest('hex'), 'x-time': String(NOW) };
    const base = { scheme: 'custom', secret: 'custom-secret', header: 'X-Sig' };
    for (const broken of [{ algorithm: 'md5' }, { encoding: 'utf8' }, { timestampHeader: 'X Time' }]) {
      expect(await outcome({ ...base, ...broken } as unknown as SignatureAuthCredential, headers), JSON.stringify(broken)).to.equal('AUTH_NOT_CONFIGURED');
    }
  });
});

/**
 * The same cases on a real node:http server, signed calls pipelined on one connection (the unit specs above hand-build
 * the request): each call is checked by its own headers and body, in order, with the server's clock set by the test.
 */
describe('signature headers on a real node:http server, calls pipelined on one connection', () => {
  it('checks each pipelined call by its own headers: the tolerance edge, milliseconds, parts in any order, parts not ours, malformed ones', async () => {
    const schemes: Scheme[] = ['slack', 'stripe', 'standardWebhooks', 'github'];
    const registry = new MemoryWebhookRegistry();
    for (const scheme of schemes) {
      await registry.activate({ workflowId: scheme, nodes: [{ name: 'Signed', credentials: { ref: scheme }, parameters: { path: scheme, httpMethod: 'POST', authentication: 'signatureAuth', options: { rawBody: scheme === 'github' } } }] });
    }
    const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), {
      credentials: ({ credentials: ref }) => credentialOf((ref as { ref: Scheme }).ref), logger: { error: () => undefined, warn: () => undefined },
    });
    const running = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    const post = (scheme: Scheme, headers: Record<string, string>): string =>
      `POST /webhook/${scheme} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${BODY}`;
    const stripe = (await signedHeaders('stripe', BODY, { at: NOW }))['stripe-signature'] ?? '';
    const [t, v1] = stripe.split(',');
    const standard = await signedHeaders('standardWebhooks', BODY, { at: NOW, messageId: 'msg_pipelined' });
    const calls = [
      post('slack', await signedHeaders('slack', BODY, { at: NOW - 300 })),
      post('slack', await signedHeaders('slack', BODY, { at: NOW + 301 })),
      post('slack', await signedHeaders('slack', BODY, { at: NOW * 1000 + 123 })),
      post('stripe', { 'stripe-signature': `${v1 ?? ''},${t ?? ''}` }),
      post('stripe', { 'stripe-signature': `${stripe},v0=test_mode_only` }),
      post('stripe', { 'stripe-signature': `t=${NOW - 3600}` }),
      post('standardWebhooks', { ...standard, 'webhook-signature': `v1a,${'A'.repeat(86)}== ${standard['webhook-signature'] ?? ''}` }),
      post('github', { 'x-hub-signature-256': `sha1=${'ab'.repeat(20)}` }),
      post('github', await signedHeaders('github', BODY)),
    ];
    const realNow = Date.now;
    Date.now = () => NOW * 1000;
    try {
      const answers = await pipelined(running.port, calls);
      expect(answers.map((answer) => answer.body.code ?? answer.status)).to.deep.equal([
        200, 'SIGNATURE_EXPIRED', 200, 200, 200, 'SIGNATURE_INVALID', 200, 'SIGNATURE_INVALID', 200,
      ]);
    } finally {
      Date.now = realNow;
      await running.close();
    }
  });
});
