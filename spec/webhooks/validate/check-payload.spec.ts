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
});
