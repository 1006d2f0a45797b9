import { createRequire } from 'node:module';
import { expect } from 'chai';
import { NODE_DESCRIPTION_SCHEMA, PLATFORM_ONLY_TYPES, PROPERTY_TYPES, validateNodeDescription } from '../../lib/definitions/index.js';

const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');

describe('the JSON Schema of node descriptions', () => {
  it('is a valid draft-07 schema (the validators skip this check at run time, to start faster)', () => {
    const ajv = new Ajv({ strict: false });
    expect(ajv.validateSchema(NODE_DESCRIPTION_SCHEMA), JSON.stringify(ajv.errors)).to.equal(true);
  });

  it('offers an editor every element type to complete, and flags a typo there', () => {
    const type = NODE_DESCRIPTION_SCHEMA.definitions.property.properties.type;
    expect(type.enum).to.deep.equal([...PROPERTY_TYPES, ...PLATFORM_ONLY_TYPES]);
    expect(type.description).to.not.match(/\bspec\b/);
    const check = new Ajv({ strict: false, allErrors: true }).compile(NODE_DESCRIPTION_SCHEMA);
    expect(check({ properties: [{ displayName: 'A', name: 'a', type: 'strng', default: '' }] })).to.equal(false);
    expect(check({ properties: [{ displayName: 'A', name: 'a', type: 'string', default: '' }] })).to.equal(true);
  });

  it('names itself with an id that does not pretend to be an address', () => {
    expect(NODE_DESCRIPTION_SCHEMA.$id).to.match(/^urn:/);
  });

  it('leaves a wrong element type to its own rule: one finding, not one from the schema besides', () => {
    const result = validateNodeDescription({ displayName: 'X', name: 'x', properties: [{ displayName: 'A', name: 'a', type: 'strng', default: '' }] });
    expect(result.errors.map((finding) => finding.code)).to.deep.equal(['unknown-type']);
  });
});
