import { expect } from 'chai';
import { validate, compileErrors } from '@readme/openapi-parser';
import { describeWebhooks, ERROR_CODES, MemoryWebhookRegistry, type OpenApiDocument, type WorkflowWebhooks } from 'workflow-webhooks';

type Json = Record<string, any>;
const BASE = 'https://hooks.example.com/api/automation';

async function documentOf(workflows: WorkflowWebhooks[], options: Partial<Parameters<typeof describeWebhooks>[1]> = {}): Promise<OpenApiDocument> {
  const registry = new MemoryWebhookRegistry();
  for (const workflow of workflows) await registry.activate(workflow);
  const document = await describeWebhooks(registry, { baseUrl: BASE, ...options });
  const result = await validate(structuredClone(document) as never);
  expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true);
  return document;
}

const node = (name: string, parameters: WorkflowWebhooks['nodes'][number]['parameters'], extra: Partial<WorkflowWebhooks['nodes'][number]> = {}) =>
  ({ name, parameters, ...extra });
const operation = (document: OpenApiDocument, path: string, method: string): Json => document.paths[path]?.[method] as Json;

describe('describeWebhooks()', () => {
  it('describes an empty registry as a valid document with no paths, at the base URL given', async () => {
    const document = await documentOf([], { title: 'Orders', version: '2.1.0' });
    expect(document).to.deep.include({ openapi: '3.1.0', servers: [{ url: BASE }], paths: {} });
    expect(document.info).to.deep.include({ title: 'Orders', version: '2.1.0' });
  });

  it('gives each address one path: dynamic segments as path parameters, webhookId prefixes as registered, literals encoded', async () => {
    const document = await documentOf([
      { workflowId: 'wf-1', nodes: [node('A', { path: 'orders/:orderId/items/:itemId' }), node('B', { path: 'Hook with space' })] },
      { workflowId: 'wf-2', nodes: [node('W', { path: 'user/:id' }, { webhookId: '5f0c' })] },
    ], { productionPrefix: 'hooks' });
    expect(Object.keys(document.paths).sort()).to.deep.equal(['/hooks/5f0c/user/{id}', '/hooks/Hook%20with%20space', '/hooks/orders/{orderId}/items/{itemId}']);
    expect(document.paths['/hooks/orders/{orderId}/items/{itemId}']?.parameters).to.deep.equal([
      { name: 'orderId', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'itemId', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  it('starts the paths after a base URL that names the production prefix already', async () => {
    const document = await documentOf([{ workflowId: 'wf', nodes: [node('A', { path: 'orders/:id' })] }], { baseUrl: `${BASE}/Webhook/` });
    expect(document.servers).to.deep.equal([{ url: `${BASE}/Webhook` }]);
    expect(Object.keys(document.paths)).to.deep.equal(['/orders/{id}']);
  });

  it('puts the methods of one address under one path, though two nodes name its parameter differently', async () => {
    const document = await documentOf([
      { workflowId: 'wf-1', nodes: [node('Read', { path: 'users/:id', httpMethod: 'GET' })] },
      { workflowId: 'wf-2', nodes: [node('Write', { path: 'users/:name', httpMethod: 'PUT' })] },
    ]);
    expect(Object.keys(document.paths)).to.deep.equal(['/webhook/users/{id}']);
    expect(operation(document, '/webhook/users/{id}', 'put').description).to.include('receives the path parameters as "name"');
  });

  it('names each operation from workflow, node and method: a valid identifier, unique, the same whatever the activation order', async () => {
    const workflows: WorkflowWebhooks[] = [
      { workflowId: 'wf-1', workflowName: 'Order intake', nodes: [node('Webhook', { path: 'a', multipleMethods: true })] },
      { workflowId: 'wf-2', workflowName: 'Order  intake!', nodes: [node('Webhook', { path: 'b', httpMethod: 'GET' })] },
      { workflowId: '42', nodes: [node('Café hook', { path: 'c' })] },
    ];
    const ids = (document: OpenApiDocument) => Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).filter(([key]) => key !== 'parameters').map(([method, op]) => `${method} ${path} ${(op as Json).operationId as string}`));
    const first = ids(await documentOf(workflows));
    expect(first).to.deep.equal([
      'get /webhook/a orderIntakeWebhookGet', 'post /webhook/a orderIntakeWebhookPost', 'get /webhook/b orderIntakeWebhookGet2', 'get /webhook/c workflow42CafeHookGet',
    ]);
    expect(ids(await documentOf([...workflows].reverse()))).to.deep.equal(first);
  });

  it('sums each operation up by its workflow and node, and tags it with its workflow', async () => {
    const document = await documentOf([{ workflowId: 'wf-1', workflowName: 'Order intake', nodes: [node('New order', { path: 'orders', httpMethod: 'POST' })] }]);
    expect(operation(document, '/webhook/orders', 'post')).to.deep.include({ summary: 'Workflow "Order intake", node "New order"', tags: ['Order intake'] });
    expect(document.tags).to.deep.equal([{ name: 'Order intake', description: 'Workflow wf-1' }]);
  });

  it('describes the bodies a node accepts, and for binaryData only whole binary bodies', async () => {
    const document = await documentOf([{
      workflowId: 'wf', nodes: [
        node('Any', { path: 'any', httpMethod: 'POST', options: { rawBody: true } }),
        node('Whole', { path: 'whole', httpMethod: 'PUT', options: { binaryData: true } }),
        node('Read', { path: 'read' }),
      ],
    }]);
    const any = operation(document, '/webhook/any', 'post').requestBody as Json;
    expect(Object.keys(any.content)).to.deep.equal(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/xml', 'text/plain', 'application/octet-stream']);
    expect(any.description).to.include('option rawBody');
    expect(Object.keys((operation(document, '/webhook/whole', 'put').requestBody as Json).content)).to.deep.equal(['application/octet-stream', '*/*']);
    expect(operation(document, '/webhook/read', 'get').requestBody).to.equal(undefined);
  });

  it('describes the answer of every response mode and response data, with the resolved response code', async () => {
    const document = await documentOf([{
      workflowId: 'wf', nodes: [
        node('Started', { path: 'started', responseCode: 202 }),
        node('Text', { path: 'text', options: { responseData: 'Thanks!' } }),
        node('Empty', { path: 'empty', options: { noResponseBody: true } }),
        node('Json', { path: 'json', responseMode: 'lastNode' }, { typeVersion: 2 }),
        node('Property', { path: 'property', responseMode: 'lastNode', options: { responsePropertyName: 'data', responseCode: { values: { responseCode: 'customCode', customCode: 299 } } } }),
        node('Array', { path: 'array', responseMode: 'lastNode', responseData: 'allEntries' }),
        node('File', { path: 'file', responseMode: 'lastNode', responseData: 'firstEntryBinary', options: { responseContentType: 'application/pdf' } }),
        node('Nothing', { path: 'nothing', responseMode: 'lastNode', responseData: 'noData' }),
        node('Own', { path: 'own', responseMode: 'responseNode' }),
      ],
    }]);
    const success = (path: string) => {
      const { responses } = operation(document, `/webhook/${path}`, 'get') as { responses: Json };
      const [status] = Object.keys(responses).filter((key) => !('$ref' in responses[key]));
      return [status, Object.fromEntries(Object.entries(responses[status as string].content ?? {}).map(([type, media]) => [type, (media as Json).schema]))];
    };
    expect(success('started')).to.deep.equal(['202', { 'application/json': { type: 'object', required: ['message'], properties: { message: { type: 'string', const: 'Workflow was started' } } } }]);
    expect(success('text')).to.deep.equal(['200', { 'text/plain': { type: 'string', const: 'Thanks!' } }]);
    expect(success('empty')).to.deep.equal(['200', {}]);
    expect(success('json')).to.deep.equal(['200', { 'application/json': { type: 'object' } }]);
    expect(success('property')).to.deep.equal(['299', { 'text/plain': { type: 'string' }, 'application/json': {} }]);
    expect(success('array')).to.deep.equal(['200', { 'application/json': { type: 'array', items: { type: 'object' } } }]);
    expect(success('file')).to.deep.equal(['200', { 'application/pdf': { type: 'string', format: 'binary' } }]);
    expect(success('nothing')).to.deep.equal(['200', {}]);
    expect(success('own')).to.deep.equal(['default', { '*/*': {} }]);
  });

  it('lists the errors a call can get, as { code, message, hint? } with the codes of the error catalogue', async () => {
    const document = await documentOf([{
      workflowId: 'wf', nodes: [
        node('Open', { path: 'open' }),
        node('Waits', { path: 'waits', httpMethod: 'POST', responseMode: 'lastNode', options: { ipWhitelist: '10.0.0.0/8' } }),
      ],
    }], { timeoutStatus: 504 });
    const refs = (path: string, method: string) => Object.entries(operation(document, path, method).responses as Json)
      .filter(([, response]) => '$ref' in response).map(([status]) => Number(status));
    expect(refs('/webhook/open', 'get')).to.deep.equal([400, 404, 405, 408, 414, 431, 500, 503]);
    expect(refs('/webhook/waits', 'post')).to.deep.equal([400, 403, 404, 405, 408, 413, 414, 415, 431, 500, 503, 504]);
    const schema = document.components.schemas.WebhookError as Json;
    expect(schema.required).to.deep.equal(['code', 'message']);
    expect(schema.properties.code.enum).to.deep.equal(Object.keys(ERROR_CODES));
    expect(document.components.responses.Error504).to.deep.include({ description: 'Gateway Timeout: WORKFLOW_TIMEOUT.' });
    expect((document.components.responses.Error404 as Json).description).to.equal('Not Found: WEBHOOK_NOT_FOUND.');
    expect((document.components.responses.Error405 as Json).headers).to.have.property('Allow');
  });

  describe('security schemes', () => {
    const secured: WorkflowWebhooks = {
      workflowId: 'wf', nodes: [
        node('Basic', { path: 'basic', httpMethod: 'POST', authentication: 'basicAuth' }),
        node('Jwt', { path: 'jwt', httpMethod: 'POST', authentication: 'jwtAuth' }),
        node('Header', { path: 'header', httpMethod: 'POST', authentication: 'headerAuth' }, { credentials: { id: 'h' } }),
        node('Signed', { path: 'signed', httpMethod: 'POST', authentication: 'signatureAuth' }, { credentials: { id: 's' } }),
      ],
    };
    const requirement = (document: OpenApiDocument, path: string) => operation(document, `/webhook/${path}`, 'post').security as Json[];

    it('describes basic auth as HTTP basic, JWT as a bearer JWT, and answers them 401 and 403', async () => {
      const document = await documentOf([secured]);
      expect(document.components.securitySchemes?.basicAuth).to.deep.include({ type: 'http', scheme: 'basic' });
      expect(document.components.securitySchemes?.jwtAuth).to.deep.include({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
      expect(requirement(document, 'basic')).to.deep.equal([{ basicAuth: [] }]);
      expect(Object.keys(operation(document, '/webhook/jwt', 'post').responses)).to.include.members(['401', '403']);
      expect(Object.keys(operation(document, '/webhook/header', 'post').responses)).to.include('403').and.not.include('401');
    });

    it('names the header of header auth and the sender\'s signature header from the credentials resolver, and no secret', async () => {
      const document = await documentOf([secured], {
        credentials: ({ credentials }) => ((credentials as { id: string }).id === 'h'
          ? { name: 'X-Api-Key', value: 'top-secret-value' }
          : { scheme: 'standardWebhooks', secret: 'whsec_dG9wLXNlY3JldA==' }),
      });
      expect(document.components.securitySchemes?.['headerAuth_x-api-key']).to.deep.include({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
      expect(document.components.securitySchemes?.signatureAuth_standardWebhooks).to.deep.include({ type: 'apiKey', in: 'header', name: 'webhook-signature' });
      const signed = operation(document, '/webhook/signed', 'post');
      expect((signed.parameters as Json[]).map((parameter) => [parameter.name, parameter.in, parameter.required]))
        .to.deep.equal([['webhook-id', 'header', true], ['webhook-timestamp', 'header', true]]);
      expect(Object.keys(signed.responses)).to.include.members(['401', '403', '409']);
      expect(JSON.stringify(document)).to.not.match(/top-secret|dG9wLXNlY3JldA/);
    });

    it('uses a generic header scheme, saying so, when no resolver names the header or it fails', async () => {
      for (const credentials of [undefined, () => { throw new Error('vault down'); }]) {
        const document = await documentOf([secured], { credentials });
        expect(document.components.securitySchemes?.headerAuth).to.deep.include({ type: 'apiKey', in: 'header' });
        expect((document.components.securitySchemes?.headerAuth as Json).description).to.include('without the credentials resolver');
        expect(requirement(document, 'signed')).to.deep.equal([{ signatureAuth: [] }]);
      }
    });
  });

  describe('options', () => {
    for (const [options, message] of [
      [{}, /option baseUrl must be an absolute http\(s\) URL or a path/],
      [{ baseUrl: 'ftp://example.com' }, /option baseUrl/],
      [{ baseUrl: BASE, title: '' }, /option title must be a non-empty string/],
      [{ baseUrl: BASE, timeoutStatus: 200 }, /option timeoutStatus must be an HTTP error status/],
      [{ baseUrl: BASE, productionPrefix: 'a b' }, /option productionPrefix/],
      [{ baseUrl: BASE, credentials: 'vault' }, /option credentials must be a function/],
      [{ baseUrl: BASE, server: 'x' }, /unknown option describeWebhooks.server/],
    ] as const) {
      it(`refuses ${JSON.stringify(options)} with a TypeError naming the option`, async () => {
        const error = await describeWebhooks(new MemoryWebhookRegistry(), options as never).then(() => undefined, (thrown: unknown) => thrown);
        expect(error).to.be.instanceOf(TypeError).with.property('message').that.matches(message);
      });
    }

    it('takes a path from the host\'s root as the base URL, and refuses a registry without list()', async () => {
      expect((await documentOf([], { baseUrl: '/api/automation/' })).servers).to.deep.equal([{ url: '/api/automation' }]);
      const error = await describeWebhooks({} as never, { baseUrl: BASE }).catch((thrown: unknown) => thrown);
      expect(error).to.be.instanceOf(TypeError).with.property('message').that.includes('a registry with list()');
    });
  });
});
