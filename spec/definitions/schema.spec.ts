import { createRequire } from 'node:module';
import { expect } from 'chai';
import { NODE_DESCRIPTION_SCHEMA } from '../../lib/definitions/index.js';

describe('the JSON Schema of node descriptions', () => {
  it('is a valid draft-07 schema (the validators skip this check at run time, to start faster)', () => {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    const ajv = new Ajv({ strict: false });
    expect(ajv.validateSchema(NODE_DESCRIPTION_SCHEMA), JSON.stringify(ajv.errors)).to.equal(true);
  });
});
