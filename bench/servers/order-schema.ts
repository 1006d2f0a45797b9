/**
 * The payload schema of the speed bench's `schema` contender (speed-server.ts, family `mwnode-schema`) and of
 * `npm run bench -- schemas` (schema-cost.ts): ten fields, the six of the bench's 72-byte JSON order among them.
 */
export const ORDER_SCHEMA = {
  type: 'object',
  required: ['order', 'items', 'customer'],
  properties: {
    order: { type: 'integer', minimum: 1 },
    items: { type: 'array', maxItems: 100, items: { type: 'object', required: ['sku', 'qty'], properties: { sku: { type: 'string', maxLength: 64 }, qty: { type: 'integer', minimum: 1 } } } },
    customer: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' } } },
    note: { type: 'string', maxLength: 500 },
    currency: { enum: ['EUR', 'USD', 'GBP'] },
    gift: { type: 'boolean' },
  },
};

/** The JSON body the speed bench sends (speed/runner.ts, `loads()`; http.ts): 72 bytes, valid against ORDER_SCHEMA. */
export const ORDER_BODY = '{"order":1234,"items":[{"sku":"tea","qty":2}],"customer":{"name":"Ada"}}';
