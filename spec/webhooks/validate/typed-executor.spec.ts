/**
 * Typed executors: under `strict`, an executor typed from a zod or valibot schema (`SchemaOutput<typeof schema>`) or
 * from an `as const` JSON Schema (json-schema-to-ts's `FromSchema`) reads `run.items[0].json.body.name` as a string
 * with no cast. The type checker (npm run typecheck) is the test: each `@ts-expect-error` fails the build if the body
 * were `any` or `unknown`; the runs then show the body the types describe is the one the run gets.
 */
import { expect } from 'chai';
import type { FromSchema } from 'json-schema-to-ts';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type SchemaOutput, type WebhookExecutor } from '../../../lib/index.js';
import { HOSTS, BASE } from '../../support/apps.js';
import { ORDER_JSON_SCHEMA, ORDER_VALIBOT, ORDER_ZOD } from '../../support/payload-schemas.js';

/** True only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;

const fromZod: WebhookExecutor<SchemaOutput<typeof ORDER_ZOD>> = (run) => {
  const { body } = run.items[0].json;
  const name: Same<typeof body.name, string> = true;
  const qty: Same<typeof body.qty, number> = true;
  // @ts-expect-error the body's name is a string, not a number
  const wrong: number = body.name;
  return { items: [{ json: { name: body.name.toUpperCase(), checks: [name, qty], wrong } }] };
};

const fromValibot: WebhookExecutor<SchemaOutput<typeof ORDER_VALIBOT>> = (run) => {
  const { body } = run.items[0].json;
  const name: Same<typeof body.name, string> = true;
  // @ts-expect-error the body's name is a string, not a number
  const wrong: number = body.name;
  return { items: [{ json: { name: body.name.toUpperCase(), checks: [name], wrong } }] };
};

const fromJsonSchema: WebhookExecutor<FromSchema<typeof ORDER_JSON_SCHEMA>> = (run) => {
  const { body } = run.items[0].json;
  const name: Same<typeof body.name, string> = true;
  const gift: Same<typeof body.gift, boolean | undefined> = true;
  // @ts-expect-error the body's name is a string, not a number
  const wrong: number = body.name;
  return { items: [{ json: { name: body.name.toUpperCase(), checks: [name, gift], wrong } }] };
};

const EXECUTORS = [
  { name: 'a zod schema', executor: fromZod, schema: 'order' },
  { name: 'a valibot schema', executor: fromValibot, schema: 'order-valibot' },
  { name: 'an `as const` JSON Schema', executor: fromJsonSchema, schema: ORDER_JSON_SCHEMA },
] as const;

describe('executors typed from a payload schema', () => {
  for (const { name, executor, schema } of EXECUTORS) {
    it(`an executor typed from ${name} gets the body its type describes`, async () => {
      const registry = new MemoryWebhookRegistry();
      await registry.activate({
        workflowId: 'typed',
        nodes: [{ name: 'Order', parameters: { path: 'order', httpMethod: 'POST', responseMode: 'lastNode' } }],
        schemas: { Order: { body: schema } },
      });
      const app = (HOSTS[0] as (typeof HOSTS)[number]).build(createWebhookMiddleware(registry, executor, {
        schemas: { order: ORDER_ZOD, 'order-valibot': ORDER_VALIBOT },
      }));
      const res = await request(app).post(`${BASE}/webhook/order`).send({ name: 'Tea', qty: 1 }).expect(200);
      expect(res.body.name).to.equal('TEA');
      await request(app).post(`${BASE}/webhook/order`).send({ name: 7, qty: 1 }).expect(422);
    });
  }
});
