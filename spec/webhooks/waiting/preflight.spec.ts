/**
 * OPTIONS at a resume address (a waiting run's own address, not a registered path): `Allow` with the wait's
 * methods, or a CORS preflight answered by the wait's own allowedOrigins; neither uses up the wait.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { WebhookExecutor } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { publish, waitingApp, type WaitingApp } from '../../support/waiting/app.js';

const START = `${BASE}/webhook/start`;
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
const host = HOSTS[0] as (typeof HOSTS)[number];

describe(`OPTIONS and CORS preflights at a resume address (${host.name})`, () => {
  let app: WaitingApp;
  afterEach(async () => { await app?.close(); });

  const suspending: WebhookExecutor = async (run) => {
    if (run.resume !== undefined) return { items: [{ json: { resumed: true } }] };
    const suspended = await run.suspend({ httpMethod: ['POST', 'PUT'], options: { allowedOrigins: 'https://app.example.com' } });
    publish(app, suspended.resumeUrl);
    return { items: [{ json: { waiting: true } }] };
  };

  it('answers a plain OPTIONS with the wait\'s methods, a preflight by the wait\'s allowedOrigins, and still resumes afterwards', async () => {
    app = await waitingApp(host, suspending);
    await request(app.server).post(START).send({}).expect(200);
    const address = await app.nextWait();
    const plain = await request(app.server).options(address).set('Origin', 'https://app.example.com').expect(204);
    expect(plain.headers).to.include({ allow: 'OPTIONS, POST, PUT', vary: PREFLIGHT_VARY });
    expect(plain.headers['access-control-allow-origin']).to.equal(undefined);
    const preflight = await request(app.server).options(address).set('Origin', 'https://app.example.com').set('Access-Control-Request-Method', 'put').expect(204);
    expect(preflight.headers).to.include({
      'access-control-allow-origin': 'https://app.example.com', 'access-control-allow-methods': 'OPTIONS, POST, PUT', vary: PREFLIGHT_VARY,
    });
    const refused = await request(app.server).options(address).set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'POST').expect(403);
    expect(refused.body.code).to.equal('CORS_ORIGIN_NOT_ALLOWED');
    const otherMethod = await request(app.server).options(address).set('Origin', 'https://app.example.com').set('Access-Control-Request-Method', 'DELETE').expect(405);
    expect(otherMethod.headers.allow).to.equal('POST, PUT');
    const resumed = await request(app.server).put(address).set('Origin', 'https://app.example.com').send({}).expect(200);
    expect(resumed.headers['access-control-allow-origin']).to.equal('https://app.example.com');
  });
});
