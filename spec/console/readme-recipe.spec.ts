/**
 * The console guide's code (docs/console.md), run as printed with an environment of its own: it refuses to start without a long enough
 * CONSOLE_PASSWORD (an empty one would let in `admin:`), and lets in only the right password.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { WebhookMiddleware } from '../../lib/index.js';
import { docBlock } from '../support/readme/blocks.js';
import { runReadmeBlock } from '../support/readme/run-block.js';

const PASSWORD = 'correct horse battery staple';

/** The block with its last line (`app.listen(3000)`) left out: supertest serves the app on a free port instead. */
function block(): string {
  const printed = docBlock('docs/console.md', '# Console');
  if (!printed.includes('app.listen(3000);\n')) throw new Error('The console guide\'s block no longer ends with app.listen(3000)');
  return printed.replace('app.listen(3000);\n', '');
}

function start(env: Record<string, string>): Promise<{ app: Express; middleware: WebhookMiddleware }> {
  return runReadmeBlock(block(), '{ app, middleware }', { process: { env } });
}

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

describe('the console guide\'s code, run as printed', function () {
  this.timeout(20_000);

  for (const [name, env] of [['unset', {}], ['empty', { CONSOLE_PASSWORD: '' }], ['short', { CONSOLE_PASSWORD: 'admin' }]] as const) {
    it(`refuses to start when CONSOLE_PASSWORD is ${name}, saying what to set (or, had it started, lets nobody in)`, async () => {
      let started: { app: Express; middleware: WebhookMiddleware } | undefined;
      try {
        started = await start(env);
      } catch (error) {
        expect(error).to.be.instanceOf(Error);
        expect((error as Error).message).to.match(/CONSOLE_PASSWORD must be set/);
        return;
      }
      try {
        // What a stranger tries first: the user name with an empty password, and the password the variable holds.
        for (const credentials of ['admin:', `admin:${env.CONSOLE_PASSWORD ?? ''}`]) {
          const answer = await request(started.app).get('/admin/webhooks/api/overview').set('authorization', basic(credentials));
          expect(answer.status, credentials).to.equal(401);
        }
      } finally {
        await started.middleware.close();
      }
    });
  }

  describe('with a password', () => {
    let started: { app: Express; middleware: WebhookMiddleware };
    before(async () => { started = await start({ CONSOLE_PASSWORD: PASSWORD }); });
    after(() => started?.middleware.close());

    it('answers 401 with the challenge without credentials, with an empty password and with a wrong one', async () => {
      for (const authorization of [undefined, basic('admin:'), basic(`admin:${PASSWORD.slice(0, -1)}`), basic(`root:${PASSWORD}`), 'Basic']) {
        const call = request(started.app).get('/admin/webhooks/api/overview');
        const answer = await (authorization === undefined ? call : call.set('authorization', authorization));
        expect(answer.status, String(authorization)).to.equal(401);
        expect(answer.headers['www-authenticate']).to.equal('Basic realm="webhooks"');
      }
    });

    it('serves the console to the right password', async () => {
      const answer = await request(started.app).get('/admin/webhooks/api/overview').set('authorization', basic(`admin:${PASSWORD}`));
      expect(answer.status).to.equal(200);
      expect(answer.body).to.have.property('csrfToken').that.is.a('string');
    });
  });
});
