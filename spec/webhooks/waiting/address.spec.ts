import { expect } from 'chai';
import request from 'supertest';
import type { TriggerItem } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { eventually } from '../../support/temp-dir.js';
import { publish, waitingApp, type WaitingApp } from '../../support/waiting/app.js';

const START = `${BASE}/webhook/start`;
const host = HOSTS[0] as (typeof HOSTS)[number];

/** How many times runs of `app` have started waiting so far. */
const waits = (app: WaitingApp): number => app.events.filter((event) => event.type === 'waiting').length;

describe(`resume addresses are signed for their own step (${host.name})`, () => {
  let app: WaitingApp;
  afterEach(async () => { await app?.close(); });

  /** A run that waits for a manager, then for finance, at the same wait id with another suffix each time. */
  function twoSteps(form: 'inRun' | 'suspended') {
    return async (run: Parameters<Parameters<typeof waitingApp>[1]>[0]) => {
      if (form === 'inRun') {
        publish(app, run.resumeUrlFor('manager'));
        const manager: TriggerItem = await run.waitForCall({ suffix: 'manager', timeoutMs: 5000 });
        publish(app, run.resumeUrlFor('finance'));
        const finance: TriggerItem = await run.waitForCall({ suffix: 'finance', timeoutMs: 5000 });
        return { items: [{ json: { manager: manager.json.body, finance: finance.json.body, query: finance.json.query, webhookUrl: finance.json.webhookUrl } }] };
      }
      const step = run.resume === undefined ? 'manager' : (run.resume.state as { next: string }).next;
      if (step === 'done') return { items: [{ json: { finance: run.items[0]?.json.body, query: run.items[0]?.json.query, webhookUrl: run.items[0]?.json.webhookUrl } }] };
      const suspended = await run.suspend({ suffix: step, state: { next: step === 'manager' ? 'finance' : 'done' }, responseMode: 'lastNode' });
      publish(app, suspended.resumeUrl);
      return { items: [{ json: { step } }] };
    };
  }

  /** The manager's address, and the finance one once the run waits there (the same id, another suffix). */
  async function managerThenFinance(): Promise<{ manager: string; finance: string; started: Promise<request.Response> }> {
    const started = request(app.server).post(START).send({}).then((response) => response);
    const manager = await app.nextWait();
    await request(app.server).post(manager).send({ approvedBy: 'manager' }).expect(200);
    const finance = await app.nextWait();
    // Once the run waits again, a forged call would reach it.
    await eventually(() => waits(app) === 2, 3000);
    return { manager, finance, started };
  }

  /** What the run learned of the finance call: the run's answer (in the run), or the resumed run's (suspended). */
  async function financeOutcome(form: 'inRun' | 'suspended', resumed: request.Response, started: Promise<request.Response>): Promise<Record<string, unknown>> {
    return (form === 'inRun' ? (await started).body : resumed.body) as Record<string, unknown>;
  }

  for (const form of ['inRun', 'suspended'] as const) {
    it(`refuses the manager's address with its suffix edited to the finance step, which its own address still resumes (${form})`, async () => {
      app = await waitingApp(host, twoSteps(form));
      const { manager, finance, started } = await managerThenFinance();
      expect(manager).to.match(/\/webhook-waiting\/[\w-]{22}\/manager\?signature=[\w-]{43}$/);
      const edited = manager.replace('/manager?', '/finance?');
      expect(edited.split('?')[0]).to.equal(finance.split('?')[0]);
      const forged = await request(app.server).post(edited).send({ approvedBy: 'someone else' });
      expect([forged.status, forged.body.code]).to.deep.equal([403, 'WAIT_SIGNATURE_INVALID']);
      const resumed = await request(app.server).post(finance).send({ approvedBy: 'finance' }).expect(200);
      expect(await financeOutcome(form, resumed, started)).to.deep.include({ finance: { approvedBy: 'finance' } });
    });

    it(`gives the resumed run the caller's query parameters without the signature, however its name is spelled, and a webhookUrl without it (${form})`, async () => {
      app = await waitingApp(host, twoSteps(form));
      const { finance, started } = await managerThenFinance();
      // URLSearchParams (which finds the signature) decodes names: `sig%6Eature` is the signature parameter too.
      const resumed = await request(app.server).post(`${finance.replace('?signature=', '?sig%6Eature=')}&ticket=FIN-7&note=ok`).send({}).expect(200);
      const outcome = await financeOutcome(form, resumed, started);
      expect(outcome.query).to.deep.equal({ ticket: 'FIN-7', note: 'ok' });
      expect(outcome.webhookUrl).to.match(/\/api\/automation\/webhook-waiting\/[\w-]{22}\/finance$/);
    });
  }
});
