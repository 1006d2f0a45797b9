/**
 * What the console shows of a test call's credentials, over real HTTP in every host: nothing. The Input pane's
 * trigger item, the Output pane's items (a workflow that passes the trigger item through, or repeats a secret inside
 * a string of its own), GET /api/listens, every event of the stream, the curl line and the name of a captured file to
 * download all show `[redacted]` (placeholders in the curl line) where a secret was: the header the node's
 * authentication checked (whatever its name), Authorization, Cookie, API key headers and secret query parameters.
 */
import { expect } from 'chai';
import type { ListenSnapshot, RunDto } from '../../lib/console/index.js';
import { CONSOLE_BASE, CONSOLE_HOSTS, CONSOLE_WORKFLOWS, startConsoleApp, WEBHOOK_BASE, type ConsoleApp } from '../support/console-app.js';
import { consoleSession, type ConsoleSession } from '../support/console-session.js';
import {
  HEADER_SECRET, IDENT_SECRET, QUERY_TOKEN, SECRET_WORKFLOWS, secretCredentials, secretEchoExecutor, secretsOf, sendSecretCall, signedJwt, type Guard,
} from '../support/secret-calls.js';

interface Captured {
  /** Every `listen` event of the workflow the stream sent, from the call's arrival to the listen's end. */
  events: ListenSnapshot[];
  listed: ListenSnapshot[];
  run: RunDto;
  secrets: string[];
}

function leaked(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => text.includes(secret));
}

for (const host of CONSOLE_HOSTS) {
  describe(`the console shows no credential of a test call in ${host}`, () => {
    let app: ConsoleApp;
    let page: ConsoleSession;
    before(async () => {
      app = await startConsoleApp({
        host,
        executor: secretEchoExecutor,
        middleware: { credentials: secretCredentials },
        console: { workflows: new Map([...CONSOLE_WORKFLOWS, ...SECRET_WORKFLOWS].map((workflow) => [workflow.workflowId, workflow])) },
      });
      page = await consoleSession(app);
    });
    after(() => app?.close());

    async function capture(guard: Guard): Promise<Captured> {
      const jwt = guard === 'jwt' ? await signedJwt() : '';
      const workflowId = `guarded-${guard}`;
      const stream = await page.events();
      try {
        const started = await page.post(`/api/workflows/${workflowId}/listen`, {});
        expect(started.status).to.equal(201);
        const { listen } = await started.json() as ListenSnapshot;
        const listenId = 'listenId' in listen ? listen.listenId : '';
        expect(await sendSecretCall(`${app.origin}${WEBHOOK_BASE}/webhook-test`, guard, jwt)).to.equal(200);
        const events: ListenSnapshot[] = [];
        for (;;) {
          const event = await stream.next<ListenSnapshot>('listen', (one) => one.listen.state !== 'listening' && 'listenId' in one.listen && one.listen.listenId === listenId);
          events.push(event);
          if (event.listen.state === 'ended') break;
        }
        const ended = events.at(-1)?.listen;
        if (ended?.state !== 'ended' || ended.run === undefined) throw new Error(`no run in ${JSON.stringify(ended)}`);
        return { events, listed: await page.get<ListenSnapshot[]>('/api/listens'), run: ended.run, secrets: secretsOf(jwt) };
      } finally {
        stream.close();
      }
    }

    describe('a call to a node guarded by Basic credentials', () => {
      let captured: Captured;
      before(async () => { captured = await capture('basic'); });

      it('shows the trigger item in the Input pane with the credential headers and secret query parameters redacted, the rest as sent', () => {
        const json = captured.run.trigger[0]?.json as { headers: Record<string, string>; query: Record<string, string>; body: unknown };
        expect(json.headers).to.include({ authorization: '[redacted]', cookie: '[redacted]', 'x-api-key': '[redacted]', 'x-trace': 'trace-1' });
        expect(json.query).to.deep.equal({ ref: 'plain', token: '[redacted]', api_key: '[redacted]' });
        expect(json.body).to.deep.equal({ customer: 'Grace' });
        expect(leaked(JSON.stringify(captured.run.trigger), captured.secrets)).to.deep.equal([]);
      });

      it('shows the output of a workflow that passes the trigger item through, and repeats the Basic password in a string, redacted', () => {
        const items = captured.run.output?.items ?? [];
        expect(items).to.have.length(2);
        expect((items[0]?.json as { headers: Record<string, string> }).headers).to.include({ authorization: '[redacted]', cookie: '[redacted]' });
        expect(items[1]?.json).to.deep.include({
          note: 'The caller signed in with [redacted].',
          link: 'https://example.com/callback?token=[redacted]',
          cookie: 'remembered [redacted]',
        });
        expect(leaked(JSON.stringify(captured.run.output), captured.secrets)).to.deep.equal([]);
      });

      it('answers GET /api/listens without a secret', () => {
        const text = JSON.stringify(captured.listed);
        expect(text).to.include('[redacted]').and.to.include('trace-1');
        expect(leaked(text, captured.secrets)).to.deep.equal([]);
      });

      it('sends no secret in any event of the stream: the call arriving, the output, the end', () => {
        expect(captured.events.map((event) => event.listen.state)).to.deep.equal(['running', 'running', 'ended']);
        for (const event of captured.events) expect(leaked(JSON.stringify(event), captured.secrets)).to.deep.equal([]);
      });

      it('writes the curl line with placeholders where the credentials and secret query parameters were', () => {
        const { curl } = captured.run;
        expect(curl).to.include(`/webhook-test/secrets/basic?ref=plain&token=<token>&api_key=<api_key>'`);
        expect(curl).to.include("-H 'authorization: <authorization>'").and.to.include("-H 'cookie: <cookie>'")
          .and.to.include("-H 'x-api-key: <x-api-key>'").and.to.include("-H 'x-trace: trace-1'");
        expect(leaked(curl, captured.secrets)).to.deep.equal([]);
      });

      it('names a captured file whose name holds a secret without it, on the page and in its download', async () => {
        const file = captured.run.trigger[0]?.binary?.statement;
        expect(file?.fileName).to.equal('statement-[redacted].pdf');
        const download = await fetch(`${app.origin}${CONSOLE_BASE}/${file?.download}`);
        expect(download.status).to.equal(200);
        expect(download.headers.get('content-disposition')).to.equal('attachment; filename="statement-[redacted].pdf"');
        expect(Buffer.from(await download.arrayBuffer()).toString()).to.equal('%PDF-1.7 statement');
        expect(captured.run.curl).to.include("-F 'statement=@<path to statement-_redacted_.pdf>;type=application/pdf'").and.not.to.include(QUERY_TOKEN);
      });
    });

    it('hides the value of a header-auth credential under X-Authentication everywhere: input, output, API, stream, curl', async () => {
      const captured = await capture('header');
      expect((captured.run.trigger[0]?.json as { headers: Record<string, string> }).headers['x-authentication']).to.equal('[redacted]');
      expect(captured.run.output?.items[1]?.json).to.deep.include({ header: 'checked [redacted]' });
      expect(captured.run.curl).to.include("-H 'x-authentication: <x-authentication>'");
      const shown = JSON.stringify([captured.events, captured.listed, captured.run.curl]);
      expect(leaked(shown, [HEADER_SECRET, ...captured.secrets])).to.deep.equal([]);
    });

    it('hides the header a node\'s header auth checks even when its name says nothing of a credential (X-Partner-Ident)', async () => {
      const captured = await capture('ident');
      expect((captured.run.trigger[0]?.json as { headers: Record<string, string> }).headers['x-partner-ident']).to.equal('[redacted]');
      expect(captured.run.output?.items[1]?.json).to.deep.include({ header: 'checked [redacted]' });
      expect(captured.run.curl).to.include("-H 'x-partner-ident: <x-partner-ident>'");
      const shown = JSON.stringify([captured.events, captured.listed, captured.run.curl]);
      expect(leaked(shown, [IDENT_SECRET, ...captured.secrets])).to.deep.equal([]);
    });

    it('hides a JWT sent as a Bearer token, also where the workflow repeats it in a string of its own', async () => {
      const captured = await capture('jwt');
      expect(captured.run.output?.items[1]?.json).to.deep.include({ bearer: 'token was [redacted]' });
      const shown = JSON.stringify([captured.events, captured.listed, captured.run.curl]);
      expect(leaked(shown, captured.secrets)).to.deep.equal([]);
    });
  });
}
