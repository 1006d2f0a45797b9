/**
 * The console as a guest in the host's server: it keeps the headers the host set (its cookies beside the console's,
 * its security policy joined with the console's), finds its own address whether or not the URL ends in a slash,
 * leaves an authorize hook that answered the request to it, reports a hook that throws to the logger, and on close()
 * stops hearing calls, ends the pages' streams and stops its listens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import { buildConsolePage } from '../../scripts/build-console.js';
import type { CallListing } from '../../lib/console/index.js';
import { CONSOLE_BASE, CONSOLE_HOSTS, startConsoleApp, WEBHOOK_BASE, type ConsoleApp } from '../support/console-app.js';
import { consoleSession } from '../support/console-session.js';

const HOST_CSP = "img-src 'self' https://cdn.example.com";

describe('the console in its host\'s server', function () {
  this.timeout(20_000);
  before(() => buildConsolePage());

  for (const host of CONSOLE_HOSTS) {
    it(`serves its page at its mount path with or without the slash, its files addressed under the mount, in ${host}`, async () => {
      const app = await startConsoleApp({ host });
      try {
        for (const path of [CONSOLE_BASE, `${CONSOLE_BASE}/`, `${CONSOLE_BASE}?from=menu`]) {
          const answer = await fetch(`${app.origin}${path}`);
          expect(answer.status, path).to.equal(200);
          const html = await answer.text();
          expect(html, path).to.include(`src="${CONSOLE_BASE}/assets/console.js"`).and.to.include(`data-base="${CONSOLE_BASE}"`);
        }
      } finally {
        await app.close();
      }
    });
  }

  it('keeps the host\'s cookie beside its own and joins the host\'s security policy with its own', async () => {
    const app = await startConsoleApp({ hostHeaders: { 'set-cookie': 'host-session=s1; Path=/; HttpOnly', 'content-security-policy': HOST_CSP, 'x-request-id': 'host-1' } });
    try {
      const page = await fetch(`${app.origin}${CONSOLE_BASE}/`);
      expect(page.headers.get('x-request-id')).to.equal('host-1');
      expect(page.headers.get('content-security-policy')).to.match(new RegExp(`^${HOST_CSP}, default-src 'none';`));
      const overview = await fetch(`${app.origin}${CONSOLE_BASE}/api/overview`);
      const cookies = overview.headers.getSetCookie();
      expect(cookies).to.have.length(2);
      expect(cookies[0]).to.equal('host-session=s1; Path=/; HttpOnly');
      expect(cookies[1]).to.match(/^wwc_csrf=/);
    } finally {
      await app.close();
    }
  });

  it('leaves a request its authorize hook answered (a redirect to the login page) as the hook answered it', async () => {
    const app = await startConsoleApp({
      console: {
        public: undefined,
        authorize: (_req: IncomingMessage, res: ServerResponse) => { res.statusCode = 302; res.setHeader('location', '/login'); res.end(); return false; },
      } as never,
    });
    try {
      const answer = await fetch(`${app.origin}${CONSOLE_BASE}/api/webhooks`, { redirect: 'manual' });
      expect(answer.status).to.equal(302);
      expect(answer.headers.get('location')).to.equal('/login');
      expect(await answer.text()).to.equal('');
    } finally {
      await app.close();
    }
  });

  it('answers 500 INTERNAL_ERROR when authorize throws, and gives the cause to the logger', async () => {
    const logged: Record<string, unknown>[] = [];
    const app = await startConsoleApp({
      console: {
        public: undefined,
        authorize: () => { throw new Error('session store down'); },
        logger: { error: (fields: Record<string, unknown>) => logged.push(fields), warn: () => undefined },
      } as never,
    });
    try {
      const answer = await fetch(`${app.origin}${CONSOLE_BASE}/api/webhooks`);
      expect(answer.status).to.equal(500);
      expect(await answer.json()).to.deep.equal({ code: 'INTERNAL_ERROR', message: 'The console could not answer this request.' });
      expect(logged).to.have.length(1);
      expect((logged[0]?.cause as { message?: string }).message).to.equal('session store down');
      expect(logged[0]?.during).to.equal('GET /api/webhooks');
    } finally {
      await app.close();
    }
  });

  it('on close() stops recording calls, ends the pages\' event streams and stops the listens it started', async () => {
    const app: ConsoleApp = await startConsoleApp();
    try {
      const page = await consoleSession(app);
      const stream = await page.events();
      expect((await page.post('/api/workflows/draft/listen', {})).status).to.equal(201);
      await stream.next('listen');
      await app.console.close();
      let ended = false;
      await stream.next('never', () => false, 1000).catch((error: Error) => { ended = error.message === 'The event stream ended'; });
      expect(ended).to.equal(true);
      expect(await app.registry.listTestWebhooks!()).to.deep.equal([]);
      await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/orders`, { method: 'POST', headers: { 'x-request-id': 'after-close' } });
      const { calls } = await page.get<CallListing>('/api/calls');
      expect(calls.map((call) => call.callId)).not.to.include('after-close');
    } finally {
      await app.close();
    }
  });
});
