/**
 * The OpenAPI document of webhooks with payload schemas: a JSON Schema becomes the operation's request body (and its
 * query and header parameters), with local references that still resolve, and the 422 answer with its errors; a
 * zod schema is described through its own JSON Schema; a validator that has none is named as validated but not
 * described. Every document passes @readme/openapi-parser, which resolves every reference.
 */
import { expect } from 'chai';
import { validate, compileErrors } from '@readme/openapi-parser';
import request from 'supertest';
import {
  createWebhookMiddleware, describeWebhooks, MemoryWebhookRegistry, type OpenApiDocument, type WorkflowWebhooks,
} from '../../../lib/index.js';
import { HOSTS, BASE } from '../../support/apps.js';
import { ORDER_VALIBOT, ORDER_ZOD } from '../../support/payload-schemas.js';

type Json = Record<string, any>;

const WORKFLOW: WorkflowWebhooks = {
  workflowId: 'orders',
  workflowName: 'Orders',
  nodes: [
    { name: 'Json', parameters: { path: 'json', httpMethod: 'POST' } },
    { name: 'Zod', parameters: { path: 'zod', httpMethod: 'POST' } },
    { name: 'Valibot', parameters: { path: 'valibot', httpMethod: 'POST' } },
    { name: 'Plain', parameters: { path: 'plain', httpMethod: 'POST' } },
  ],
  schemas: {
    Json: {
      body: { type: 'object', $defs: { line: { type: 'object', properties: { sku: { type: 'string' } } } }, properties: { lines: { type: 'array', items: { $ref: '#/$defs/line' } } } },
      query: { type: 'object', properties: { page: { type: 'integer' } } },
      headers: { type: 'object', required: ['x-tenant'], properties: { 'x-tenant': { type: 'string' } } },
    },
    Zod: { body: 'order' },
    Valibot: { body: 'order-valibot' },
  },
};
const VALIDATORS = { order: ORDER_ZOD, 'order-valibot': ORDER_VALIBOT };

async function checked(document: OpenApiDocument): Promise<OpenApiDocument> {
  const result = await validate(structuredClone(document) as never);
  expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true);
  return document;
}

async function documentOf(): Promise<OpenApiDocument> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate(WORKFLOW);
  return checked(await describeWebhooks(registry, { baseUrl: 'https://hooks.example.com/api', schemas: VALIDATORS }));
}

const post = (document: OpenApiDocument, path: string): Json => document.paths[`/webhook/${path}`]?.post as Json;

describe('the OpenAPI document of webhooks with payload schemas', () => {
  it('carries a JSON Schema as the request body, query and header parameters, its local references rebased into its component', async () => {
    const document = await documentOf();
    const operation = post(document, 'json');
    const ref = operation.requestBody.content['application/json'].schema.$ref as string;
    expect(ref).to.equal('#/components/schemas/ordersJsonPostBody');
    const component = (document.components as Json).schemas.ordersJsonPostBody;
    expect(component.properties.lines.items).to.deep.equal({ $ref: '#/components/schemas/ordersJsonPostBody/$defs/line' });
    expect(operation.requestBody.content['application/x-www-form-urlencoded'].schema.$ref).to.equal(ref);
    expect(operation.parameters).to.deep.include({ name: 'x-tenant', in: 'header', required: true, schema: { $ref: '#/components/schemas/ordersJsonPostHeaders/properties/x-tenant' } });
    expect(operation.parameters.find((parameter: Json) => parameter.in === 'query').schema).to.deep.equal({ $ref: '#/components/schemas/ordersJsonPostQuery' });
  });

  it('lists the 422 answer, whose error body holds the errors, on checked operations only', async () => {
    const document = await documentOf();
    expect(post(document, 'json').responses['422']).to.deep.equal({ $ref: '#/components/responses/Error422' });
    expect(post(document, 'plain').responses['422']).to.equal(undefined);
    const components = document.components as Json;
    expect(components.responses.Error422.description).to.include('PAYLOAD_INVALID');
    expect(components.schemas.WebhookError.properties.errors.items.required).to.deep.equal(['path', 'message']);
  });

  it('describes a zod schema through its own JSON Schema, and a valibot one (which has none) as validated but not described', async () => {
    const document = await documentOf();
    const zod = (document.components as Json).schemas.ordersZodPostBody;
    expect(zod.required).to.deep.equal(['name', 'qty']);
    expect(post(document, 'zod').description).to.include('checked against the node\'s schema');
    const valibot = post(document, 'valibot');
    expect(valibot.description).to.include('validated but not described');
    expect(valibot.requestBody.content['application/json'].schema).to.deep.equal({});
    expect(valibot.responses['422']).to.deep.equal({ $ref: '#/components/responses/Error422' });
  });

  it('is what the middleware serves with its own schemas option', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate({ ...WORKFLOW, nodes: [WORKFLOW.nodes[1] as WorkflowWebhooks['nodes'][number]], schemas: { Zod: { body: 'order' } } });
    const app = (HOSTS[0] as (typeof HOSTS)[number]).build(createWebhookMiddleware(registry, () => ({ items: [] }), { schemas: VALIDATORS, openApi: {} }));
    const res = await request(app).get(`${BASE}/openapi.json`).expect(200);
    const document = await checked(res.body as OpenApiDocument);
    expect((document.components as Json).schemas.ordersZodPostBody.properties.name.type).to.equal('string');
  });

  it('says that every call is refused 500 when the server lacks the validator a webhook names, not that it is validated', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate({ ...WORKFLOW, nodes: [WORKFLOW.nodes[1] as WorkflowWebhooks['nodes'][number]], schemas: { Zod: { body: 'order' } } });
    const app = (HOSTS[0] as (typeof HOSTS)[number]).build(createWebhookMiddleware(registry, () => ({ items: [] }), { openApi: {} }));
    const res = await request(app).get(`${BASE}/openapi.json`).expect(200);
    const description = post(await checked(res.body as OpenApiDocument), 'zod').description as string;
    expect(description).to.include('Every call is refused 500 PAYLOAD_SCHEMA_MISSING').and.include('"order"');
    expect(description).to.not.include('validated but not described');
    await request(app).post(`${BASE}/webhook/zod`).send({ name: 'Ada', qty: 1 }).expect(500).expect((call) => {
      expect(call.body.code).to.equal('PAYLOAD_SCHEMA_MISSING');
    });
  });

  it('passes a draft-07 schema on with its own dialect', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate({ workflowId: 'd7', nodes: [{ name: 'Old', parameters: { path: 'old', httpMethod: 'POST' } }],
      schemas: { Old: { body: { $schema: 'http://json-schema.org/draft-07/schema#', definitions: { n: { type: 'integer' } }, properties: { n: { $ref: '#/definitions/n' } } } } } });
    const document = await checked(await describeWebhooks(registry, { baseUrl: 'https://hooks.example.com/api' }));
    expect((document.components as Json).schemas.d7OldPostBody.properties.n).to.deep.equal({ $ref: '#/components/schemas/d7OldPostBody/definitions/n' });
  });
});
