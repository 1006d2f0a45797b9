import { expect } from 'chai';
import request from 'supertest';
import {
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  type Item,
  type WebhookError,
  type WebhookExecutor,
  type WebhookRun,
} from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { compileErrors } from '../../support/readme/blocks.js';
import { workflow } from '../../support/workflows.js';
import { isHandOff } from '../../../lib/webhooks/run/hand-off.js';

/**
 * What an executor may be: a plain function returning its result, one that throws, one typed by its body, and one
 * that hands its runs off (lib/webhooks/run/hand-off.ts: known by its handOff function).
 */
describe('executors', () => {
  const host = HOSTS[0] as (typeof HOSTS)[number];
  let failures: WebhookError[];

  async function appWith(executor: WebhookExecutor): Promise<ReturnType<typeof host.build>> {
    failures = [];
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'signup', httpMethod: 'POST', responseMode: 'lastNode' }));
    return host.build(createWebhookMiddleware(registry, executor, { onWorkflowError: (error) => failures.push(error) }));
  }

  it('may return the result without a promise', async () => {
    const app = await appWith((run) => ({ items: [{ json: { method: run.method } }] }));
    const res = await request(app).post(`${BASE}/webhook/signup`).send({ name: 'Ada' }).expect(200);
    expect(res.body).to.deep.equal({ method: 'POST' });
  });

  it('may throw without a promise: the same 500 WORKFLOW_FAILED as a rejection, the cause reported', async () => {
    const app = await appWith(() => { throw new Error('engine down'); });
    const res = await request(app).post(`${BASE}/webhook/signup`).send({}).expect(500);
    expect(res.body).to.include({ code: 'WORKFLOW_FAILED', message: 'Error in workflow' });
    expect(failures).to.have.length(1);
    expect((failures[0]?.cause as Error).message).to.equal('engine down');
  });

  it('may type the body: run.items[0].json.body without casts, and is accepted by the middleware', async () => {
    const typed: WebhookExecutor<{ name: string }> = (run) => {
      const { body, headers, webhookUrl } = run.items[0].json;
      const name: string = body.name;
      return { items: [{ json: { welcome: name, type: headers['content-type'], webhookUrl } }] };
    };
    const app = await appWith(typed);
    const res = await request(app).post(`${BASE}/webhook/signup`).send({ name: 'Ada' }).expect(200);
    expect(res.body).to.include({ welcome: 'Ada', type: 'application/json' });
    expect(res.body.webhookUrl).to.match(/\/api\/automation\/webhook\/signup$/);
  });

  it('type headers, params and query without a body type; a list of other items is declared Item[]', async function () {
    this.timeout(30_000);
    const plain: WebhookExecutor = (run: WebhookRun) => {
      const trigger = run.items[0];
      const type: string | string[] | undefined = trigger?.json.headers['content-type'];
      const body: unknown = trigger?.json.body;
      // Steps that turn the trigger items into others hold them as Item[], which trigger items are.
      let items: Item[] = run.items;
      items = items.map((item): Item => ({ json: { seen: true, type, body: item.json.body } }));
      return { items: body === undefined ? [] : items };
    };
    const res = await request(await appWith(plain)).post(`${BASE}/webhook/signup`).send({ name: 'Ada' }).expect(200);
    expect(res.body).to.deep.equal({ seen: true, type: 'application/json', body: { name: 'Ada' } });
    // The types themselves, in a user's file: what must compile does, and what must not is refused (a directive
    // that expects an error where there is none is an error of its own).
    const code = `import type { Item, WebhookExecutor, WebhookRun } from 'workflow-webhooks';
export const plain: WebhookExecutor = (run: WebhookRun) => {
  const items: Item[] = run.items;
  const type: string | string[] | undefined = run.items[0]?.json.headers['content-type'];
  return { items: items.map((item): Item => ({ json: { ...item.json, type } })) };
};
// Runs of any body type fit where a plain run is expected (a list of runs, a test listen's result).
export const runs: WebhookRun[] = [] as WebhookRun<{ name: string }>[];
// @ts-expect-error a header is text, not a number
export const count: number | undefined = ([] as WebhookRun[])[0]?.items[0].json.headers['content-length'];
`;
    expect(compileErrors(code)).to.deep.equal([]);
  });

  it('compile under strict in a user\'s file without a body type: headers, params and query typed, the body unknown', function () {
    this.timeout(30_000);
    const code = `import type { WebhookExecutor } from 'workflow-webhooks';
export const executor: WebhookExecutor = (run) => {
  const { headers, params, query, body } = run.items[0].json;
  const h: string | string[] | undefined = headers['x-api-key'];
  const id: string | undefined = params['orderId'];
  const q: unknown = query['page'];
  const b: unknown = body;
  return { items: [{ json: { h, id, q, b } }] };
};
`;
    expect(compileErrors(code)).to.deep.equal([]);
    // Still checked: the body is unknown, not any.
    expect(compileErrors(code.replace('const b: unknown = body;', 'const b: string = body;')).join('\n')).to.match(/unknown/);
  });
});

describe('a hand-off executor', () => {
  const plain: WebhookExecutor = () => ({ items: [] });

  it('is known by its handOff function', () => {
    const queued = Object.assign((() => ({ items: [] })) as WebhookExecutor, { handOff: () => Promise.resolve({ jobId: 'j1', duplicate: false }), deduplicates: false });
    expect(isHandOff(queued)).to.equal(true);
  });

  it('is not a plain executor, nor one whose handOff is not a function', () => {
    expect(isHandOff(plain)).to.equal(false);
    expect(isHandOff(Object.assign((() => ({ items: [] })) as WebhookExecutor, { handOff: 'queue' }))).to.equal(false);
  });
});
