/**
 * A workflow's payload schemas at activation: JSON Schemas of draft 2020-12 and draft-07 compile; one that cannot
 * be compiled refuses the workflow with ajv's message and where the schema is; untrusted schemas are bounded (size,
 * nesting, risky patterns), and a pattern still matches long strings exactly.
 */
import { expect } from 'chai';
import { MemoryWebhookRegistry, resolveWorkflowWebhooks, WebhookError, type JsonSchema, type WorkflowWebhooks } from '../../../lib/index.js';
import { riskyPattern } from '../../../lib/webhooks/registry/schema-patterns.js';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_SIZE } from '../../../lib/webhooks/registry/json-schemas.js';

function workflow(body: unknown, extra: Partial<WorkflowWebhooks> = {}): WorkflowWebhooks {
  return {
    workflowId: 'wf',
    nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }],
    schemas: { Webhook: { body: body as JsonSchema } },
    ...extra,
  };
}

function refusal(given: WorkflowWebhooks): WebhookError {
  try {
    resolveWorkflowWebhooks(given);
  } catch (error) {
    expect(error).to.be.instanceOf(WebhookError);
    expect((error as WebhookError).code).to.equal('WEBHOOK_INVALID_NODE');
    return error as WebhookError;
  }
  throw new Error('the workflow was accepted');
}

function bodyCheck(schema: unknown): (data: unknown) => boolean {
  const [webhook] = resolveWorkflowWebhooks(workflow(schema));
  const check = webhook?.schemas?.body;
  if (check?.kind !== 'json' || check.exact === undefined) throw new Error('no compiled body schema');
  return check.exact;
}

describe('payload schemas at activation', () => {
  it('compiles a draft 2020-12 schema (the default) and a draft-07 one, each with its own keywords', () => {
    const tuple = bodyCheck({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false });
    expect(tuple(['a', 1])).to.equal(true);
    expect(tuple(['a', 1, 2])).to.equal(false);
    const draft07 = bodyCheck({
      $schema: 'http://json-schema.org/draft-07/schema#',
      definitions: { qty: { type: 'integer' } },
      type: 'object',
      properties: { qty: { $ref: '#/definitions/qty' } },
    });
    expect(draft07({ qty: 1 })).to.equal(true);
    expect(draft07({ qty: 'one' })).to.equal(false);
  });

  it('keeps the compiled schema on every webhook of the node (one per method), and none on a node without schemas', () => {
    const webhooks = resolveWorkflowWebhooks({
      workflowId: 'wf',
      nodes: [
        { name: 'Webhook', parameters: { path: 'a', multipleMethods: true, httpMethod: ['GET', 'POST'] } },
        { name: 'Other', parameters: { path: 'b' } },
      ],
      schemas: { Webhook: { query: { type: 'object' } } },
    });
    expect(webhooks.map((webhook) => webhook.schemas?.query?.kind)).to.deep.equal(['json', 'json', undefined]);
  });

  it('refuses a schema ajv cannot compile with ajv\'s message and where the schema is', () => {
    const error = refusal(workflow({ type: 'object', properties: { qty: { type: 'number-ish' } } }));
    expect(error.message).to.include('schemas["Webhook"].body');
    expect(error.message).to.include('data/properties/qty/type');
    expect(refusal(workflow({ $ref: '#/$defs/missing' })).message).to.include('#/$defs/missing');
    expect(error.hint).to.include('JSON Schema');
  });

  it('refuses a draft it is not set up for, a value that is no schema, and schemas for a node the workflow does not have', () => {
    expect(refusal(workflow({ $schema: 'http://json-schema.org/draft-04/schema#' })).message).to.include('draft-07');
    expect(refusal(workflow(42)).message).to.include('neither a JSON Schema');
    expect(refusal(workflow('')).message).to.include('empty validator name');
    const stray = refusal({ ...workflow(true), schemas: { Webhok: { body: true } } });
    expect(stray.message).to.include('"Webhok"');
    expect(stray.hint).to.include('"Webhook"');
    expect(refusal({ ...workflow(true), schemas: { Webhook: { bdy: true } as never } }).message).to.include('bdy');
  });

  it('refuses a schema too large or nested too deep to be a payload\'s description', () => {
    const properties = Object.fromEntries(Array.from({ length: MAX_SCHEMA_SIZE / 16 }, (_, index) => [`field${index}`, { type: 'string' }]));
    expect(refusal(workflow({ type: 'object', properties })).message).to.include('larger than');
    let deep: object = { type: 'string' };
    for (let level = 0; level < MAX_SCHEMA_DEPTH; level++) deep = { type: 'array', items: deep };
    expect(refusal(workflow(deep)).message).to.include('nests deeper');
  });

  it('refuses patterns that can backtrack without bound, wherever the schema holds them', () => {
    for (const pattern of ['^(a+)+$', '^(a|ab)*$', '(\\w+\\s?)*x', '^(.)\\1$', '^a*a*a*a*$', `^${'a'.repeat(300)}$`]) {
      expect(riskyPattern(pattern), pattern).to.be.a('string');
    }
    expect(refusal(workflow({ type: 'object', patternProperties: { '^(a+)+$': true } })).message).to.include('(a+)+');
    expect(refusal(workflow({ type: 'object', properties: { id: { type: 'string', pattern: '^(x|xy)+$' } } })).message).to.include('repeats a group');
  });

  it('accepts the patterns payloads usually have', () => {
    for (const pattern of ['^[A-Z]{2}\\d{6}$', '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$', '^(\\+|-)?\\d+$', '^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$', '^[a-z]+(?:-[a-z]+)?$']) {
      expect(riskyPattern(pattern), pattern).to.equal(undefined);
    }
  });

  it('matches a pattern against a long string exactly as RegExp does (tested under its time budget)', () => {
    const check = bodyCheck({ type: 'string', pattern: '^a+b$' });
    expect(check(`${'a'.repeat(5000)}b`)).to.equal(true);
    expect(check(`${'a'.repeat(5000)}c`)).to.equal(false);
    expect(check('ab')).to.equal(true);
  });

  it('gives up on a long string that an allowed pattern would backtrack over for minutes: it does not match', () => {
    // Three unbounded repeats pass the compile-time check; 5,000 characters would take V8 minutes to fail them.
    const check = bodyCheck({ type: 'string', pattern: '^a*a*a*$' });
    expect(check(`${'a'.repeat(5000)}!`)).to.equal(false);
    expect(check('a'.repeat(5000))).to.equal(true);
  });

  it('refuses the activation in the registry, which keeps none of the workflow', async () => {
    const registry = new MemoryWebhookRegistry();
    let refused: unknown;
    try {
      await registry.activate(workflow({ type: 'strin' }));
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(WebhookError);
    expect((await registry.lookup('production', 'POST', 'orders')).found).to.equal(false);
  });
});
