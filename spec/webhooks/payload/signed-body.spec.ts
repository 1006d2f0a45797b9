import type { IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookLimitsOptions, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { hostsOf, runModes } from '../../support/queue/run-modes.js';
import { send } from '../../support/raw-http.js';
import { credentialOf, signedHeaders, type Scheme } from '../../support/signers.js';

const quiet = { error: () => undefined, warn: () => undefined };

async function signedRegistry(): Promise<MemoryWebhookRegistry> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Signed', parameters: { path: 'in', httpMethod: 'POST', authentication: 'signatureAuth' } }] });
  return registry;
}

for (const mode of runModes('signed bodies')) for (const host of hostsOf(mode, HOSTS)) {
  describe(`the body of a signed call in ${host.name}${mode.suffix}`, () => {
    mode.hooks();
    let runs: WebhookRun[];
    const appFor = async (scheme: Scheme, limits: WebhookLimitsOptions = {}) => host.build(createWebhookMiddleware(await signedRegistry(),
      mode.executor((run) => { runs.push(run); return { items: [] }; }), { credentials: () => credentialOf(scheme), limits, logger: quiet }));

    beforeEach(() => { runs = []; });

    it('checks a gzip-compressed body over the bytes the sender signed, then parses it', async () => {
      const body = JSON.stringify({ action: 'opened', number: 7 });
      const app = await appFor('github');
      // Sent raw: superagent would serialize a Buffer given with a JSON type.
      const res = await send(app, { path: `${BASE}/webhook/in`, headers: {
        ...await signedHeaders('github', body), 'content-type': 'application/json', 'content-encoding': 'gzip',
      }, chunks: [gzipSync(body)] });
      expect(res.status).to.equal(200);
      await mode.settled();
      expect(runs[0]?.items[0]?.json.body).to.deep.equal({ action: 'opened', number: 7 });
    });

    it('checks and parses a form body, as Slack sends its commands', async () => {
      const body = 'command=%2Fdeploy&text=prod&user_name=ada';
      const app = await appFor('slack');
      await request(app).post(`${BASE}/webhook/in`).set(await signedHeaders('slack', body)).type('form').send(body).expect(200);
      await mode.settled();
      expect(runs[0]?.items[0]?.json.body).to.deep.equal({ command: '/deploy', text: 'prod', user_name: 'ada' });
    });

    it('checks a signed multipart body whole, then gives its fields and files', async () => {
      const boundary = 'sig-boundary';
      const body = `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`
        + `--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nfile text\r\n--${boundary}--\r\n`;
      const app = await appFor('custom');
      await request(app).post(`${BASE}/webhook/in`).set(await signedHeaders('custom', body))
        .set('content-type', `multipart/form-data; boundary=${boundary}`).send(body).expect(200);
      await mode.settled();
      const item = runs[0]?.items[0];
      expect(item?.json.body).to.deep.equal({ note: 'hello' });
      expect(item?.binary?.doc?.data?.toString()).to.equal('file text');
    });

    it('verifies an empty body too', async () => {
      const app = await appFor('shopify');
      await request(app).post(`${BASE}/webhook/in`).set(await signedHeaders('shopify', '')).expect(200);
      await mode.settled();
      expect(runs[0]?.items[0]?.json.body).to.deep.equal({});
    });

    it('holds a signed body to limits.bodySize whatever its type, and answers 413 without running', async () => {
      const body = 'x'.repeat(5000);
      const app = await appFor('github', { bodySize: 1000 });
      const res = await request(app).post(`${BASE}/webhook/in`).set(await signedHeaders('github', body))
        .set('content-type', 'application/octet-stream').send(body).expect(413);
      expect(res.body.code).to.equal('LIMIT_BODY_SIZE');
      expect(runs).to.have.length(0);
    });
  });
}

describe('a signed call behind a host body parser', () => {
  const body = JSON.stringify({ ok: true });

  async function hostApp(verify: boolean): Promise<express.Express> {
    const app = express();
    app.use(express.json(verify ? { verify: (req: IncomingMessage, _res, buf) => { (req as IncomingMessage & { rawBody?: Buffer }).rawBody = buf; } } : {}));
    app.use(BASE, createWebhookMiddleware(await signedRegistry(), (run) => ({ items: run.items }), {
      credentials: () => credentialOf('github'), logger: quiet,
    }));
    return app;
  }

  it('is refused with 500 SIGNATURE_BODY_UNAVAILABLE, telling the host what to change, when no raw bytes were kept', async () => {
    const res = await request(await hostApp(false)).post(`${BASE}/webhook/in`).set(await signedHeaders('github', body))
      .set('content-type', 'application/json').send(body).expect(500);
    expect(res.body.code).to.equal('SIGNATURE_BODY_UNAVAILABLE');
    expect(res.body.hint).to.match(/before global body parsers.*verify hook/);
  });

  it('is checked over the bytes the parser\'s verify hook kept', async () => {
    await request(await hostApp(true)).post(`${BASE}/webhook/in`).set(await signedHeaders('github', body))
      .set('content-type', 'application/json').send(body).expect(200);
    const res = await request(await hostApp(true)).post(`${BASE}/webhook/in`).set(await signedHeaders('github', body))
      .set('content-type', 'application/json').send(JSON.stringify({ ok: false })).expect(403);
    expect(res.body.code).to.equal('SIGNATURE_INVALID');
  });
});
