/**
 * A resume address with a payload schema (the wait's `schemas`): a call that does not match is answered 422 and the
 * run keeps waiting at the same address, so the next call that matches resumes it, in the run (`waitForCall()`) and
 * from a stored wait (`suspend()`). A wait whose schema cannot be compiled is refused when the run asks for it.
 */
import { expect } from 'chai';
import request from 'supertest';
import { WebhookError, type TriggerItem } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { ORDER_ZOD } from '../../support/payload-schemas.js';
import { publish, waitingApp, type WaitingApp } from '../../support/waiting/app.js';

const START = `${BASE}/webhook/start`;
const host = HOSTS[0] as (typeof HOSTS)[number];
const APPROVAL = { type: 'object', required: ['approved'], properties: { approved: { type: 'boolean' } } } as const;

describe('resume addresses with a payload schema', () => {
  let app: WaitingApp;
  afterEach(async () => { await app?.close(); });

  it('keeps a run waiting in the run when a call does not match; the next one that matches resumes it', async () => {
    app = await waitingApp(host, async (run) => {
      publish(app, run.resumeUrl);
      const call: TriggerItem = await run.waitForCall({ timeoutMs: 5000, schemas: { body: APPROVAL, query: 'page' } });
      return { items: [{ json: { resumedWith: call.json.body, query: call.json.query } }] };
    }, { schemas: { page: ORDER_ZOD.pick({ qty: true }) } });
    const started = request(app.server).post(START).send({}).then((response) => response);
    const address = await app.nextWait();
    const refused = await request(app.server).post(`${address}&qty=none`).send({ approved: 'yes' }).expect(422);
    expect(refused.body.errors.map((error: { path: string }) => error.path)).to.have.members(['/body/approved', '/query/qty']);
    await request(app.server).post(`${address}&qty=2`).send({ approved: true }).expect(200);
    expect((await started).body).to.deep.equal({ resumedWith: { approved: true }, query: { qty: 2 } });
  });

  it('keeps a suspended wait when a call does not match; the next one that matches resumes the run', async () => {
    app = await waitingApp(host, async (run) => {
      if (run.resume !== undefined) return { items: [{ json: { resumedWith: run.items[0]?.json.body } }] };
      publish(app, (await run.suspend({ schemas: { body: APPROVAL }, responseMode: 'lastNode' })).resumeUrl);
      return { items: [{ json: { suspended: true } }] };
    });
    await request(app.server).post(START).send({}).expect(200);
    const address = await app.nextWait();
    await request(app.server).post(address).type('form').send('approved=maybe').expect(422);
    const resumed = await request(app.server).post(address).type('form').send('approved=true').expect(200);
    expect(resumed.body).to.deep.equal({ resumedWith: { approved: true } });
  });

  it('refuses a wait whose schema cannot be compiled, when the run asks for it', async () => {
    let refused: unknown;
    app = await waitingApp(host, async (run) => {
      try {
        await run.waitForCall({ timeoutMs: 5000, schemas: { body: { type: 'yes-or-no' } } });
      } catch (error) {
        refused = error;
      }
      return { items: [{ json: {} }] };
    });
    await request(app.server).post(START).send({}).expect(200);
    expect(refused).to.be.instanceOf(WebhookError);
    expect((refused as WebhookError).message).to.include('Wait "Wait": schemas.body cannot be compiled');
  });
});
