/**
 * A workflow's payload schemas at activation: JSON Schemas of draft 2020-12 and draft-07 compile; one that cannot
 * be compiled refuses the workflow with ajv's message and where the schema is; untrusted schemas are bounded (size,
 * nesting, patterns RE2 cannot run, unbounded recursion), and a pattern still matches long strings exactly.
 */
import { expect } from 'chai';
import { MemoryWebhookRegistry, resolveWorkflowWebhooks, WebhookError, type JsonSchema, type WorkflowWebhooks } from '../../../lib/index.js';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_SIZE } from '../../../lib/webhooks/registry/json-schema/compile.js';

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

  it('refuses patterns no linear-time engine can run, with the reason, wherever the schema holds them', () => {
    expect(refusal(workflow({ type: 'object', patternProperties: { '^(a)\\1$': true } })).message).to.include('backreference');
    expect(refusal(workflow({ type: 'object', properties: { id: { type: 'string', pattern: '^(?=x)x$' } } })).message).to.include('lookahead');
    expect(refusal(workflow({ type: 'object', propertyNames: { pattern: '(?<!a)b' } })).message).to.include('lookbehind');
    expect(refusal(workflow({ type: 'string', pattern: '^(a' })).message).to.include('schemas["Webhook"].body');
  });

  it('accepts the patterns that backtracking engines stall on, since they run in linear time', () => {
    for (const pattern of ['^(a+)+$', '^(a|ab)*$', '(\\w+\\s?)*x', '^((\\w|\\d))+$', `^${'(?:a|a)?'.repeat(20)}a{20}$`, '^a*a*a*a*$']) {
      expect(bodyCheck({ type: 'string', pattern })('a'.repeat(40) + '!'), pattern).to.be.a('boolean');
    }
  });

  it('matches a pattern against a long string exactly as RegExp does', () => {
    const check = bodyCheck({ type: 'string', pattern: '^a+b$' });
    expect(check(`${'a'.repeat(5000)}b`)).to.equal(true);
    expect(check(`${'a'.repeat(5000)}c`)).to.equal(false);
    expect(check('ab')).to.equal(true);
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
