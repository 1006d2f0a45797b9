/**
 * checkPayload, the validate stage itself: a JSON body is checked as sent while query strings (and form bodies) are
 * read as the types the schema says; the run gets what passed (coerced values, a validator's output); and the body,
 * the query and the headers of one call share one budget of work.
 */
import { expect } from 'chai';
import { resolveWorkflowWebhooks, type JsonSchema, type RegisteredWebhook, type StandardSchema } from '../../../lib/index.js';
import { ValidationBudget, withinBudget } from '../../../lib/webhooks/registry/json-schema/budget.js';
import { compileJsonSchema } from '../../../lib/webhooks/registry/json-schema/compile.js';
import { checkPayload, type CheckedParts } from '../../../lib/webhooks/validate/index.js';

const LETTERS = { type: 'string', pattern: '^[a-z]+$' } as const;

function webhookWith(schemas: Record<string, unknown>): RegisteredWebhook {
  const [webhook] = resolveWorkflowWebhooks({ workflowId: 'wf', nodes: [{ name: 'Hook', parameters: { path: 'p', httpMethod: 'POST' } }], schemas: { Hook: schemas } });
  return webhook as RegisteredWebhook;
}

function parts(body: unknown, query: Record<string, unknown> = {}, bodyKind: CheckedParts['bodyKind'] = 'json'): CheckedParts {
  return { body, query, headers: {}, bodyKind };
}

function refusal(run: () => unknown): { code?: string; errors?: unknown } {
  try {
    run();
  } catch (error) {
    return error as { code?: string; errors?: unknown };
  }
  throw new Error('the call was not refused');
}

describe('the validate stage', () => {
  const numbers = { type: 'object', properties: { qty: { type: 'integer' } } };

  it('checks a JSON body as sent, so "3" is no integer, but reads a form body\'s and a query\'s strings as the schema says', () => {
    const webhook = webhookWith({ body: numbers, query: numbers });
    expect(refusal(() => checkPayload(webhook, webhook.schemas ?? {}, parts({ qty: '3' }), new Map(), 1e6)).code).to.equal('PAYLOAD_INVALID');
    const form = parts({ qty: '3' }, { qty: '4' }, 'form');
    expect(checkPayload(webhook, webhook.schemas ?? {}, form, new Map(), 1e6)).to.equal(undefined);
    expect([form.body, form.query]).to.deep.equal([{ qty: 3 }, { qty: 4 }]);
  });

  it('gives the run a validator\'s output for the query, as it does for the body', () => {
    const upper: StandardSchema = { '~standard': { version: 1, vendor: 'spec', validate: (value) => ({ value: { seen: Object.keys(value as object).length } }) } };
    const webhook = webhookWith({ query: 'upper', body: 'upper' });
    const checked = parts({ a: 1, b: 2 }, { q: 'x' });
    expect(checkPayload(webhook, webhook.schemas ?? {}, checked, new Map([['upper', upper]]), 1e6)).to.equal(undefined);
    expect([checked.body, checked.query]).to.deep.equal([{ seen: 2 }, { seen: 1 }]);
  });

  it('shares one budget among the body and the query: each passes alone, together they are refused PAYLOAD_TOO_COSTLY', () => {
    const body = Array.from({ length: 400 }, () => 'abcdefghij');
    const query = { q: 'abcdefghij'.repeat(400) };
    const cost = (schema: JsonSchema, data: unknown): number => {
      const budget = new ValidationBudget(1e9);
      withinBudget(budget, () => compileJsonSchema(schema, data === body ? false : true)(data));
      return 1e9 - budget.left;
    };
    const bodySchema = { type: 'array', items: LETTERS };
    const querySchema = { type: 'object', properties: { q: LETTERS } };
    const units = Math.ceil(Math.max(cost(bodySchema, body), cost(querySchema, query)) * 1.3);
    const webhook = webhookWith({ body: bodySchema, query: querySchema });
    const bodyOnly = webhookWith({ body: bodySchema });
    const queryOnly = webhookWith({ query: querySchema });
    expect(checkPayload(bodyOnly, bodyOnly.schemas ?? {}, parts(body), new Map(), units)).to.equal(undefined);
    expect(checkPayload(queryOnly, queryOnly.schemas ?? {}, parts(undefined, query), new Map(), units)).to.equal(undefined);
    expect(refusal(() => checkPayload(webhook, webhook.schemas ?? {}, parts(body, query), new Map(), units)).code).to.equal('PAYLOAD_TOO_COSTLY');
  });

  it('points the 422 at a property named a/b~c as /a~1b~0c, whether it is wrong or missing', () => {
    const named = { type: 'object', required: ['a/b~c', '~1'], properties: { 'a/b~c': { type: 'integer' }, '~1': { type: 'integer' } } };
    const webhook = webhookWith({ body: named });
    expect(refusal(() => checkPayload(webhook, webhook.schemas ?? {}, parts({ 'a/b~c': 'x' }), new Map(), 1e6)).errors).to.deep.equal([
      { path: '/body/~01', message: 'is required' },
      { path: '/body/a~1b~0c', message: 'must be integer' },
    ]);
  });

  it('cuts from the 422 a value a validator printed bare, found by its plain-key path alone, in the body and the query', () => {
    // A stub validator as a host may write one: its issues carry no `input`, and their paths are plain keys.
    const bare: StandardSchema = {
      '~standard': {
        version: 1, vendor: 'stub',
        validate: (value) => {
          const sent = value as { plan: string; meta?: { note: string } };
          const issues = [{ message: `plan must be free or pro; got ${sent.plan}`, path: ['plan'] }];
          if (sent.meta !== undefined) issues.push({ message: `note too long: ${sent.meta.note}`, path: ['meta', 'note'] });
          return { issues };
        },
      },
    };
    const webhook = webhookWith({ body: 'bare', query: 'bare' });
    const call = parts({ plan: 'sk_live_body', meta: { note: 'sk_live_note' } }, { plan: 'sk_live_query' });
    expect(refusal(() => checkPayload(webhook, webhook.schemas ?? {}, call, new Map([['bare', bare]]), 1e6)).errors).to.deep.equal([
      { path: '/body/plan', message: 'plan must be free or pro; got (the value sent)' },
      { path: '/body/meta/note', message: 'note too long: (the value sent)' },
      { path: '/query/plan', message: 'plan must be free or pro; got (the value sent)' },
    ]);
  });
});
