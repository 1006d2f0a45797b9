import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  type TriggerJson,
  type WebhookCredential,
  type WebhookEvent,
  type WebhookRun,
} from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { credentialOf, SECRETS, signedHeaders, type Scheme } from '../../support/signers.js';

const SCHEMES = Object.keys(SECRETS) as Scheme[];
/** The schemes whose senders sign a timestamp (the others carry none to check). */
const TIMED: Scheme[] = ['standardWebhooks', 'stripe', 'slack', 'custom'];
const BODY = JSON.stringify({ id: 'evt_1', type: 'order.paid', amount: 4200 });

for (const host of HOSTS) {
  describe(`signed webhooks in ${host.name}`, () => {
    let runs: WebhookRun[];
    let events: WebhookEvent[];
    let credentials: Record<string, WebhookCredential>;
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    beforeEach(async () => {
      runs = [];
      events = [];
      credentials = Object.fromEntries(SCHEMES.map((scheme) => [scheme, credentialOf(scheme)]));
      const registry = new MemoryWebhookRegistry();
      for (const scheme of SCHEMES) {
        await registry.activate({ workflowId: scheme, nodes: [{
          name: 'Signed', credentials: { ref: scheme },
          parameters: { path: `signed/${scheme}`, httpMethod: 'POST', authentication: 'signatureAuth', options: { rawBody: scheme === 'github' } },
        }] });
      }
      app = host.build(createWebhookMiddleware(registry, (run) => { runs.push(run); return { items: run.items }; }, {
        credentials: ({ credentials: ref }) => credentials[(ref as { ref: string }).ref],
        onEvent: (event) => events.push(event),
        logger: { error: () => undefined, warn: () => undefined },
      }));
    });

    const post = (scheme: Scheme, headers: Record<string, string>, body = BODY) =>
      request(app).post(`${BASE}/webhook/signed/${scheme}`).set('content-type', 'application/json').set(headers).send(body);

    for (const scheme of SCHEMES) {
      describe(scheme, () => {
        it('runs a call signed by the sender\'s own code, with the body parsed and what was verified on the item', async () => {
          const headers = await signedHeaders(scheme, BODY, { messageId: 'msg_2mX1' });
          await post(scheme, headers).expect(200);
          const json = runs[0]?.items[0]?.json as TriggerJson | undefined;
          expect(json?.body).to.deep.equal(JSON.parse(BODY));
          expect(json?.signature?.scheme).to.equal(scheme);
          if (TIMED.includes(scheme)) expect(json?.signature?.timestamp).to.be.closeTo(Date.now() / 1000, 5);
          if (scheme === 'standardWebhooks') expect(json?.signature?.messageId).to.equal('msg_2mX1');
        });

        it('refuses a tampered body with 403 SIGNATURE_INVALID, reported as rejected, and never runs', async () => {
          const headers = await signedHeaders(scheme, BODY);
          const res = await post(scheme, headers, BODY.replace('4200', '1')).expect(403);
          expect(res.body.code).to.equal('SIGNATURE_INVALID');
          expect(events.some((event) => event.type === 'rejected' && event.code === 'SIGNATURE_INVALID')).to.equal(true);
          expect(runs).to.have.length(0);
        });

        it('refuses a call signed with another secret', async () => {
          const other = scheme === 'standardWebhooks' ? `whsec_${Buffer.from('another secret entirely, 32 byte').toString('base64')}` : 'not-the-secret';
          const res = await post(scheme, await signedHeaders(scheme, BODY, { secret: other })).expect(403);
          expect(res.body.code).to.equal('SIGNATURE_INVALID');
          expect(runs).to.have.length(0);
        });

        it('accepts the old and the new secret while they rotate', async () => {
          const next = scheme === 'standardWebhooks' ? `whsec_${Buffer.from('the next standard webhooks secret').toString('base64')}` : `${SECRETS[scheme]}-next`;
          credentials[scheme] = credentialOf(scheme, [next, SECRETS[scheme]]);
          await post(scheme, await signedHeaders(scheme, BODY)).expect(200);
          await post(scheme, await signedHeaders(scheme, BODY, { secret: next })).expect(200);
          expect(runs).to.have.length(2);
        });

        it('answers a call without its signature 401 SIGNATURE_MISSING with a challenge naming the header', async () => {
          const res = await post(scheme, {}).expect(401);
          expect(res.body.code).to.equal('SIGNATURE_MISSING');
          expect(res.headers['www-authenticate']).to.match(new RegExp(`^Signature realm="Webhook", scheme="${scheme}", header="[a-z0-9-]+"$`));
          expect(runs).to.have.length(0);
        });

        if (TIMED.includes(scheme)) {
          it('refuses a signature made more than five minutes ago or ahead, with 403 SIGNATURE_EXPIRED', async () => {
            // Half a minute either side of the five-minute edge: the clock moves on between signing and checking,
            // and a slow machine must not carry a call signed 301 s ahead back inside the window.
            const now = Math.floor(Date.now() / 1000);
            for (const at of [now - 330, now + 330]) {
              const res = await post(scheme, await signedHeaders(scheme, BODY, { at })).expect(403);
              expect(res.body.code).to.equal('SIGNATURE_EXPIRED');
            }
            for (const at of [now - 270, now + 270]) await post(scheme, await signedHeaders(scheme, BODY, { at })).expect(200);
            expect(runs).to.have.length(2);
          });
        }
      });
    }

    it('keeps rawBody working: the verified bytes are the raw body', async () => {
      await post('github', await signedHeaders('github', BODY)).expect(200);
      expect(runs[0]?.items[0]?.binary?.data?.data?.toString()).to.equal(BODY);
    });

    it('refuses a Standard Webhooks message id it has already received, with 409 SIGNATURE_REPLAYED', async () => {
      const headers = await signedHeaders('standardWebhooks', BODY);
      await post('standardWebhooks', headers).expect(200);
      const res = await post('standardWebhooks', headers).expect(409);
      expect(res.body.code).to.equal('SIGNATURE_REPLAYED');
      expect(runs).to.have.length(1);
    });

    it('reports every refusal as a rejected event with its own code, and runs nothing', async () => {
      const headers = await signedHeaders('standardWebhooks', BODY);
      await post('standardWebhooks', headers).expect(200);
      await post('standardWebhooks', headers).expect(409);
      await post('standardWebhooks', {}).expect(401);
      await post('standardWebhooks', await signedHeaders('standardWebhooks', BODY, { at: Math.floor(Date.now() / 1000) - 3600 })).expect(403);
      await post('standardWebhooks', headers, '{}').expect(403);
      const rejected = events.flatMap((event) => (event.type === 'rejected' ? [[event.code, event.status, event.workflowId]] : []));
      expect(rejected).to.deep.equal([
        ['SIGNATURE_REPLAYED', 409, 'standardWebhooks'],
        ['SIGNATURE_MISSING', 401, 'standardWebhooks'],
        ['SIGNATURE_EXPIRED', 403, 'standardWebhooks'],
        ['SIGNATURE_INVALID', 403, 'standardWebhooks'],
      ]);
      expect(runs).to.have.length(1);
    });

    it('does not let a forged call use up a message id', async () => {
      const headers = await signedHeaders('standardWebhooks', BODY, { messageId: 'msg_forged' });
      await post('standardWebhooks', headers, '{"forged":true}').expect(403);
      await post('standardWebhooks', headers).expect(200);
    });

    it('takes a longer tolerance from the credential', async () => {
      credentials.slack = { ...credentialOf('slack'), toleranceSeconds: 3600 };
      await post('slack', await signedHeaders('slack', BODY, { at: Math.floor(Date.now() / 1000) - 1800 })).expect(200);
    });

    it('answers 500 AUTH_NOT_CONFIGURED for a credential that cannot verify anything', async () => {
      for (const broken of [{ scheme: 'github', secret: '' }, { scheme: 'github', secret: [] }, { scheme: 'gitlab', secret: 'x' },
        { scheme: 'custom', secret: 'x' }, { scheme: 'slack', secret: 'x', toleranceSeconds: -1 }]) {
        credentials.github = broken as unknown as WebhookCredential;
        const res = await post('github', await signedHeaders('github', BODY)).expect(500);
        expect(res.body.code).to.equal('AUTH_NOT_CONFIGURED');
      }
      expect(runs).to.have.length(0);
    });
  });
}
