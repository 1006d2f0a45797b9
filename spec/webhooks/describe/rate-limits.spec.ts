/**
 * The OpenAPI document tells a client which addresses are rate limited: their operations list 429 (RATE_LIMITED, with
 * Retry-After, RateLimit-Policy and RateLimit) and say the limit in words; addresses without a limit do not. The
 * middleware's default counts, and the served document follows it.
 */
import { expect } from 'chai';
import { validate, compileErrors } from '@readme/openapi-parser';
import { createWebhookMiddleware, describeWebhooks, MemoryWebhookRegistry, type OpenApiDocument, type WorkflowWebhooks } from 'workflow-webhooks';
import { listen, sendTo } from '../../support/raw-http.js';

type Json = Record<string, any>;

const WORKFLOWS: WorkflowWebhooks[] = [
  { workflowId: 'limited', nodes: [{ name: 'Orders', parameters: { path: 'orders', httpMethod: 'POST' } }], settings: { rateLimit: [{ limit: 10, windowMs: 60_000, key: 'ip' }, { limit: 100, windowMs: 3_600_000, name: 'hourly' }] } },
  { workflowId: 'open', nodes: [{ name: 'Ping', parameters: { path: 'ping', httpMethod: 'GET' } }] },
  { workflowId: 'out', nodes: [{ name: 'Out', parameters: { path: 'out', httpMethod: 'POST' } }], settings: { rateLimit: false } },
];

async function registryOf(): Promise<MemoryWebhookRegistry> {
  const registry = new MemoryWebhookRegistry();
  for (const workflow of WORKFLOWS) await registry.activate(workflow);
  return registry;
}

async function valid(document: OpenApiDocument): Promise<OpenApiDocument> {
  const result = await validate(structuredClone(document) as never);
  expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true);
  return document;
}

const operation = (document: OpenApiDocument, path: string, method: string): Json => document.paths[path]?.[method] as Json;

describe('rate limits in the OpenAPI document', () => {
  it('lists 429 for a limited address, with the limit in its description, and not for others', async () => {
    const document = await valid(await describeWebhooks(await registryOf(), { baseUrl: 'https://hooks.example.com' }));
    const orders = operation(document, '/webhook/orders', 'post');
    expect(orders.responses['429']).to.deep.equal({ $ref: '#/components/responses/Error429' });
    expect(orders.description).to.include('Rate limited: 10 calls per 60 s from each caller address (policy "ip-60s"); '
      + '100 calls per 3600 s from all callers together (policy "hourly"). A call beyond it gets 429 RATE_LIMITED with Retry-After, RateLimit-Policy and RateLimit, and does not run.');
    expect(operation(document, '/webhook/ping', 'get').responses).to.not.have.property('429');
    expect(operation(document, '/webhook/out', 'post').responses).to.not.have.property('429');
    const refusal = document.components.responses.Error429 as Json;
    expect(refusal.description).to.equal('Too Many Requests: RATE_LIMITED, TOO_MANY_RUNS.');
    expect(Object.keys(refusal.headers)).to.deep.equal(['Retry-After', 'RateLimit-Policy', 'RateLimit']);
  });

  it('counts the middleware\'s default for addresses that set none (describeWebhooks option rateLimit)', async () => {
    const document = await valid(await describeWebhooks(await registryOf(), { baseUrl: 'https://hooks.example.com', rateLimit: { limit: 5, windowMs: 1000 } }));
    expect(operation(document, '/webhook/ping', 'get').responses).to.have.property('429');
    expect(operation(document, '/webhook/ping', 'get').description).to.include('Rate limited: 5 calls per 1 s from all callers together (policy "address-1s")');
    expect(operation(document, '/webhook/out', 'post').responses).to.not.have.property('429');
    const refused = await describeWebhooks(new MemoryWebhookRegistry(), { baseUrl: '/', rateLimit: { limit: 0, windowMs: 1000 } }).then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(TypeError).with.property('message', 'workflow-webhooks: option rateLimit.limit must be a whole number of calls, at least 1; got 0.');
  });

  it('serves the document with the middleware\'s default applied (option openApi)', async () => {
    const middleware = createWebhookMiddleware(await registryOf(), () => ({ items: [] }), { openApi: {}, rateLimit: { default: { limit: 5, windowMs: 1000 } } });
    const server = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    try {
      const served = (await sendTo(server.port, { method: 'GET', path: '/openapi.json' })).body as OpenApiDocument;
      expect(operation(served, '/webhook/ping', 'get').responses).to.have.property('429');
    } finally {
      await server.close();
    }
  });
});
