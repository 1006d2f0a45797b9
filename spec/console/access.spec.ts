/**
 * Who may use the console: nobody without the host's `authorize` (or an explicit `public: true`), every route
 * behind it with no page data in a refusal, and every change only from the console's own page (CSRF token bound to
 * the browser's cookie, same-site requests only).
 */
import { expect } from 'chai';
import { MemoryWebhookRegistry, createWebhookMiddleware } from '../../lib/index.js';
import { createWebhookConsole } from '../../lib/console/index.js';
import { CONSOLE_BASE, CONSOLE_HOSTS, startConsoleApp, type ConsoleApp } from '../support/console-app.js';

const ROUTES: [string, string][] = [
  ['GET', '/'], ['GET', '/assets/console.js'], ['GET', '/api/overview'], ['GET', '/api/webhooks'], ['GET', '/api/workflows'],
  ['POST', '/api/workflows/orders/listen'], ['POST', '/api/workflows/orders/listen/stop'], ['GET', '/api/listens'],
  ['GET', '/api/listens/x/binary/0/data'], ['GET', '/api/calls'], ['GET', '/api/failed-jobs'], ['POST', '/api/failed-jobs/1/retry'],
  ['GET', '/api/jobs/1'], ['GET', '/api/preview/examples'], ['POST', '/api/preview/lint'], ['GET', '/api/events'], ['GET', '/no/such/page'],
];

/** The CSRF cookie and token a page gets from the overview. */
async function session(app: ConsoleApp): Promise<{ cookie: string; token: string }> {
  const answer = await fetch(`${app.origin}${CONSOLE_BASE}/api/overview`);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const { csrfToken } = await answer.json() as { csrfToken: string };
  return { cookie, token: csrfToken };
}

describe('the console refuses to be created without a way to keep strangers out', () => {
  const registry = new MemoryWebhookRegistry();
  const middleware = createWebhookMiddleware(registry, () => ({ items: [] }));
  after(() => middleware.close());

  it('throws without authorize, naming the option and the development escape', () => {
    expect(() => createWebhookConsole({ registry, middleware, webhookUrl: '/hooks' })).to.throw(TypeError, /authorize is required.*public: true/);
  });

  it('throws when both authorize and public are given, and when it cannot tell where the webhooks are', () => {
    expect(() => createWebhookConsole({ registry, middleware, webhookUrl: '/hooks', public: true, authorize: () => true })).to.throw(/either authorize or public/);
    expect(() => createWebhookConsole({ registry, middleware, public: true })).to.throw(/webhookUrl is required/);
  });

  it('throws on an unknown option, a short csrfSecret and a middleware that is not ours', () => {
    expect(() => createWebhookConsole({ registry, middleware, webhookUrl: '/hooks', public: true, titel: 'x' } as never)).to.throw(/unknown option "titel"/);
    expect(() => createWebhookConsole({ registry, middleware, webhookUrl: '/hooks', public: true, csrfSecret: 'short' })).to.throw(/32 characters/);
    expect(() => createWebhookConsole({ registry, middleware: (() => undefined) as never, webhookUrl: '/hooks', public: true })).to.throw(/middleware must be/);
  });
});

for (const host of CONSOLE_HOSTS) {
  describe(`the console behind authorize in ${host}`, () => {
    let verdict: boolean | 401 | 403 = false;
    let app: ConsoleApp;
    before(async () => {
      app = await startConsoleApp({
        host,
        console: { public: undefined, authorize: () => verdict, challenge: 'Basic realm="webhooks"' } as never,
      });
    });
    after(() => app?.close());

    it('answers every route 403 CONSOLE_FORBIDDEN when authorize says no, with nothing of the page in the answer', async () => {
      verdict = false;
      for (const [method, path] of ROUTES) {
        const answer = await fetch(`${app.origin}${CONSOLE_BASE}${path}`, { method });
        const text = await answer.text();
        expect(answer.status, `${method} ${path}`).to.equal(403);
        expect(JSON.parse(text)).to.deep.equal({ code: 'CONSOLE_FORBIDDEN', message: 'Access denied.' });
        expect(answer.headers.get('set-cookie'), `${method} ${path}`).to.equal(null);
      }
    });

    it('answers every route 401 CONSOLE_UNAUTHORIZED with the challenge when authorize says sign in first', async () => {
      verdict = 401;
      for (const [method, path] of ROUTES) {
        const answer = await fetch(`${app.origin}${CONSOLE_BASE}${path}`, { method });
        expect(answer.status, `${method} ${path}`).to.equal(401);
        expect(answer.headers.get('www-authenticate')).to.equal('Basic realm="webhooks"');
        // As docs/console.md says: the refusal names nothing of the console, its page or its data, beyond its code.
        expect(await answer.json()).to.deep.equal({ code: 'CONSOLE_UNAUTHORIZED', message: 'Authentication required.' });
      }
    });

    it('serves the page once authorize says yes', async () => {
      verdict = true;
      const answer = await fetch(`${app.origin}${CONSOLE_BASE}/api/webhooks`);
      expect(answer.status).to.equal(200);
    });
  });
}

describe('a change to the console only from its own page', () => {
  let app: ConsoleApp;
  before(async () => { app = await startConsoleApp(); });
  after(() => app?.close());

  const listen = (headers: Record<string, string>): Promise<Response> => fetch(`${app.origin}${CONSOLE_BASE}/api/workflows/draft/listen`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"timeoutMs":5000}',
  });

  it('gives the page an HttpOnly, SameSite=Strict cookie scoped to the console, and a token for it', async () => {
    const answer = await fetch(`${app.origin}${CONSOLE_BASE}/api/overview`);
    expect(answer.headers.get('set-cookie')).to.match(/^wwc_csrf=[\w-]{43}; Path=\/admin\/webhooks\/; HttpOnly; SameSite=Strict$/);
    expect((await answer.json() as { csrfToken: string }).csrfToken).to.match(/^[\w-]{43}$/);
  });

  it('refuses a POST without the token, with another browser\'s token, from another site or origin: 403 CONSOLE_CSRF_INVALID', async () => {
    const mine = await session(app);
    const theirs = await session(app);
    const refused = [
      await listen({}),
      await listen({ cookie: mine.cookie }),
      await listen({ cookie: mine.cookie, 'x-console-csrf': theirs.token }),
      await listen({ cookie: mine.cookie, 'x-console-csrf': mine.token, 'sec-fetch-site': 'cross-site' }),
      await listen({ cookie: mine.cookie, 'x-console-csrf': mine.token, origin: 'https://evil.example' }),
    ];
    for (const answer of refused) {
      expect(answer.status).to.equal(403);
      expect((await answer.json() as { code: string }).code).to.equal('CONSOLE_CSRF_INVALID');
    }
    const accepted = await listen({ cookie: mine.cookie, 'x-console-csrf': mine.token, 'sec-fetch-site': 'same-origin', origin: app.origin });
    expect(accepted.status, await accepted.clone().text()).to.equal(201);
    expect((await accepted.json() as { listen: { state: string } }).listen.state).to.equal('listening');
  });

  it('answers a known path asked with another method 405 with Allow, and an unknown one 404', async () => {
    const wrong = await fetch(`${app.origin}${CONSOLE_BASE}/api/webhooks`, { method: 'DELETE' });
    expect(wrong.status).to.equal(405);
    expect(wrong.headers.get('allow')).to.equal('GET, HEAD');
    expect((await wrong.json() as { code: string }).code).to.equal('CONSOLE_METHOD_NOT_ALLOWED');
    const unknown = await fetch(`${app.origin}${CONSOLE_BASE}/api/nothing`);
    expect(unknown.status).to.equal(404);
    expect((await unknown.json() as { code: string }).code).to.equal('CONSOLE_NOT_FOUND');
  });
});
