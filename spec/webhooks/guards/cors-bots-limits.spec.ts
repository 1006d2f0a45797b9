import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { createWebhookMiddleware, handleClientError, MemoryWebhookRegistry, type WebhookRun } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { listen } from '../../support/raw-http.js';
import { workflow } from '../../support/workflows.js';

for (const host of HOSTS) {
  describe(`CORS, bots and request limits in ${host.name}`, () => {
    let runs: WebhookRun[];
    let app: ReturnType<(typeof HOSTS)[number]['build']>;

    beforeEach(async () => {
      runs = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('open', { path: 'open', multipleMethods: true, httpMethod: ['GET', 'PUT'], responseMode: 'lastNode', options: { allowedOrigins: '*' } }));
      await registry.activate(workflow('listed', { path: 'listed', httpMethod: 'POST', responseMode: 'lastNode', options: { allowedOrigins: ' https://app.example.com , https://admin.example.com/ ' } }));
      await registry.activate(workflow('plain', { path: 'plain', httpMethod: 'POST' }));
      await registry.activate(workflow('bots', { path: 'bots', httpMethod: 'GET', options: { ignoreBots: true } }));
      await registry.activate(workflow('guarded', { path: 'guarded', httpMethod: 'POST', options: { allowedOrigins: 'https://app.example.com', ipWhitelist: '203.0.113.7', ignoreBots: true } }));
      app = host.build(createWebhookMiddleware(registry, async (run) => { runs.push(run); return { items: [{ json: {} }] }; }, {
        limits: { urlLength: 300, headerCount: 30, headerSize: 4096 },
      }));
    });

    describe('CORS', () => {
      it('answers a preflight for a registered path with its methods, the origin and the requested headers', async () => {
        const res = await request(app).options(`${BASE}/webhook/open`).set('Origin', 'https://anywhere.example').set('Access-Control-Request-Method', 'PUT')
          .set('Access-Control-Request-Headers', 'content-type, x-trace').expect(204);
        expect(res.headers).to.include({
          'access-control-allow-origin': 'https://anywhere.example',
          'access-control-allow-methods': 'OPTIONS, GET, PUT',
          'access-control-allow-headers': 'content-type, x-trace',
          'access-control-max-age': '300',
          vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
        });
        expect(runs).to.have.length(0);
      });

      it('matches a listed origin after trimming, and refuses another one with 403', async () => {
        await request(app).options(`${BASE}/webhook/listed`).set('Origin', 'https://admin.example.com').set('Access-Control-Request-Method', 'POST')
          .expect(204).expect('access-control-allow-origin', 'https://admin.example.com');
        const res = await request(app).options(`${BASE}/webhook/listed`).set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'POST').expect(403);
        expect(res.body.code).to.equal('CORS_ORIGIN_NOT_ALLOWED');
        await request(app).post(`${BASE}/webhook/listed`).set('Origin', 'https://evil.example').expect(403);
        expect(runs).to.have.length(0);
      });

      it('adds the CORS headers to the answer of an allowed call, and keeps them on its errors', async () => {
        await request(app).post(`${BASE}/webhook/listed`).set('Origin', 'https://app.example.com').expect(200).expect('access-control-allow-origin', 'https://app.example.com');
        const res = await request(app).post(`${BASE}/webhook/listed`).set('Origin', 'https://app.example.com').set('content-type', 'application/json').send('{nope').expect(400);
        expect(res.headers['access-control-allow-origin']).to.equal('https://app.example.com');
      });

      it('keeps the CORS headers on a refusal by a later guard, so the browser can read why', async () => {
        const ip = await request(app).post(`${BASE}/webhook/guarded`).set('Origin', 'https://app.example.com').expect(403);
        expect([ip.body.code, ip.headers['access-control-allow-origin']]).to.deep.equal(['WEBHOOK_IP_NOT_ALLOWED', 'https://app.example.com']);
        const bot = await request(app).post(`${BASE}/webhook/guarded`).set('Origin', 'https://app.example.com').set('User-Agent', 'Googlebot/2.1').expect(403);
        expect([bot.body.code, bot.headers['access-control-allow-origin']]).to.deep.equal(['BOT_IGNORED', 'https://app.example.com']);
        expect(runs).to.have.length(0);
      });

      it('says Vary: Origin on every answer of a node with allowedOrigins, refusals and calls without an Origin included', async () => {
        const allowed = await request(app).post(`${BASE}/webhook/listed`).set('Origin', 'https://app.example.com').expect(200);
        const refused = await request(app).post(`${BASE}/webhook/listed`).set('Origin', 'https://evil.example').expect(403);
        const noOrigin = await request(app).post(`${BASE}/webhook/listed`).expect(200);
        const wildcardNoOrigin = await request(app).get(`${BASE}/webhook/open`).expect(200);
        const refusedPreflight = await request(app).options(`${BASE}/webhook/listed`).set('Origin', 'https://evil.example')
          .set('Access-Control-Request-Method', 'POST').expect(403);
        for (const res of [allowed, refused, noOrigin, wildcardNoOrigin, refusedPreflight]) expect(res.headers.vary).to.match(/\bOrigin\b/);
        // A plain OPTIONS and a preflight of the same path differ: a cache must key them apart.
        const plain = await request(app).options(`${BASE}/webhook/open`).expect(204);
        expect(plain.headers.vary).to.equal('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
        // A node without allowedOrigins answers alike whatever the Origin: no Vary of ours.
        expect((await request(app).post(`${BASE}/webhook/plain`).set('Origin', 'https://app.example.com').expect(200)).headers.vary).to.equal(undefined);
      });

      it('sends no CORS header when the node has no allowedOrigins', async () => {
        const res = await request(app).post(`${BASE}/webhook/plain`).set('Origin', 'https://app.example.com').expect(200);
        expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control'))).to.deep.equal([]);
        const preflight = await request(app).options(`${BASE}/webhook/plain`).set('Origin', 'https://app.example.com').set('Access-Control-Request-Method', 'POST').expect(204);
        expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control'))).to.deep.equal([]);
      });

      it('answers a plain OPTIONS with Allow, and 404/405 where the path or method is unknown', async () => {
        await request(app).options(`${BASE}/webhook/open`).expect(204).expect('allow', 'OPTIONS, GET, PUT');
        await request(app).options(`${BASE}/webhook/nothing`).expect(404);
        const res = await request(app).options(`${BASE}/webhook/open`).set('Origin', 'https://a.example').set('Access-Control-Request-Method', 'DELETE').expect(405);
        expect(res.headers.allow).to.equal('GET, PUT');
      });
    });

    describe('ignoreBots', () => {
      for (const agent of ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'facebookexternalhit/1.1', 'curl/8.0.1']) {
        it(`answers ${agent.split(/[ /]/)[0] ?? ''} without running the workflow`, async () => {
          const res = await request(app).get(`${BASE}/webhook/bots`).set('User-Agent', agent).expect(403);
          expect(res.body.code).to.equal('BOT_IGNORED');
          expect(runs).to.have.length(0);
        });
      }

      it('runs the workflow for a browser', async () => {
        await request(app).get(`${BASE}/webhook/bots`).set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36').expect(200);
        expect(runs).to.have.length(1);
      });
    });

    describe('request limits', () => {
      it('answers 414 for a URL past limits.urlLength', async () => {
        const res = await request(app).post(`${BASE}/webhook/plain?q=${'x'.repeat(400)}`).expect(414);
        expect(res.body.code).to.equal('LIMIT_URL_LENGTH');
      });

      it('answers 431 for too many headers or too many header bytes', async () => {
        let call = request(app).post(`${BASE}/webhook/plain`);
        for (let i = 0; i < 40; i += 1) call = call.set(`x-h${i}`, 'v');
        expect((await call.expect(431)).body.code).to.equal('LIMIT_HEADERS');
        await request(app).post(`${BASE}/webhook/plain`).set('x-big', 'y'.repeat(5000)).expect(431);
        expect(runs).to.have.length(0);
      });
    });
  });
}

describe('handleClientError()', () => {
  function rawExchange(port: number, bytes: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => { text += chunk; });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
  }

  it('lets the answer to a complete request go out before answering bytes that follow it', async () => {
    const app = express();
    app.post('/slow', (_req, res) => { setTimeout(() => res.json({ first: true }), 50); });
    const running = await listen(app);
    running.server.on('clientError', handleClientError);
    try {
      const text = await rawExchange(running.port, 'POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}garbage that is no request\r\n\r\n');
      expect(text).to.match(/^HTTP\/1.1 200 OK\r\n/);
      expect(text).to.include('{"first":true}');
      // The bytes that follow are answered too, after the first answer.
      expect(text).to.include('REQUEST_MALFORMED');
      expect(text.indexOf('{"first":true}')).to.be.lessThan(text.indexOf('REQUEST_MALFORMED'));
    } finally {
      await running.close();
    }
  });

  it('answers what Node\'s parser refuses with the same JSON error shape', async () => {
    const running = await listen(express());
    running.server.on('clientError', handleClientError);
    try {
      const malformed = await rawExchange(running.port, 'GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(malformed).to.match(/^HTTP\/1.1 400 Bad Request\r\n/);
      expect(JSON.parse(malformed.split('\r\n\r\n')[1] ?? '')).to.deep.equal({ code: 'REQUEST_MALFORMED', message: 'The request could not be read as HTTP.' });
      const huge = await rawExchange(running.port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'z'.repeat(20_000)}\r\n\r\n`);
      expect(huge).to.match(/^HTTP\/1.1 431 /);
      expect(huge).to.include('"code":"LIMIT_HEADERS"');
    } finally {
      await running.close();
    }
  });
});

describe('handleClientError() on a request that never completes', () => {
  it('answers 408 REQUEST_TIMEOUT when the server\'s request timeout passes', async () => {
    const server = createServer({ requestTimeout: 200, connectionsCheckingInterval: 50 }, (req, res) => { req.resume(); req.on('end', () => res.end()); });
    server.on('clientError', handleClientError);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () => socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc'));
        let out = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => { out += chunk; });
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
      });
      expect(text).to.match(/^HTTP\/1.1 408 Request Timeout\r\n/);
      expect(text).to.include('"code":"REQUEST_TIMEOUT"');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
