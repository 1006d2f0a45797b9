import { expect } from 'chai';
import fc from 'fast-check';
import { validateNodeDescription, validateProperties, type ValidationResult } from '../../lib/definitions/index.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

function wellFormed(result: ValidationResult): void {
  expect(result).to.have.all.keys('valid', 'errors', 'warnings');
  expect(result.valid).to.equal(result.errors.length === 0);
  for (const finding of [...result.errors, ...result.warnings]) {
    expect(finding.path === '' || finding.path.startsWith('/'), finding.path).to.equal(true);
    expect(finding.code).to.be.a('string').and.not.equal('');
    expect(finding.message).to.be.a('string').and.not.equal('');
  }
}

/** Definitions that look almost right: known field names with arbitrary values, so the rules are exercised. */
const nearDefinition = fc.record({
  displayName: fc.oneof(fc.string(), fc.anything()),
  name: fc.oneof(fc.constantFrom('resource', 'operation', 'x', '__proto__', 'constructor'), fc.anything()),
  type: fc.oneof(fc.constantFrom('string', 'number', 'options', 'multiOptions', 'collection', 'fixedCollection', 'resourceLocator', 'resourceMapper', 'filter', 'hidden', 'bogus'), fc.anything()),
  default: fc.anything(),
  options: fc.oneof(fc.anything(), fc.array(fc.record({ name: fc.anything(), value: fc.anything(), displayName: fc.anything(), values: fc.anything() }, { requiredKeys: [] }))),
  modes: fc.array(fc.record({ name: fc.anything(), type: fc.constantFrom('list', 'string', 'x'), extractValue: fc.record({ regex: fc.string() }), validation: fc.anything(), typeOptions: fc.anything() }, { requiredKeys: [] })),
  typeOptions: fc.oneof(fc.anything(), fc.record({ minValue: fc.anything(), maxValue: fc.anything(), password: fc.anything(), rows: fc.anything(), resourceMapper: fc.anything(), filter: fc.anything() }, { requiredKeys: [] })),
  displayOptions: fc.oneof(fc.anything(), fc.record({ show: fc.dictionary(fc.string(), fc.oneof(fc.anything(), fc.array(fc.oneof(fc.anything(), fc.record({ _cnd: fc.dictionary(fc.string(), fc.anything()) }))))) })),
}, { requiredKeys: [] });

describe('the definition validators under fuzzing', function fuzzing() {
  this.timeout(60_000);

  it('never throw on any JSON value, and always answer { valid, errors, warnings }', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      wellFormed(validateProperties(value));
      wellFormed(validateNodeDescription(value));
    }), { numRuns: RUNS });
  });

  it('never throw on any JS value, prototypes and odd objects included', () => {
    fc.assert(fc.property(fc.anything({ withObjectString: true, withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true }), (value) => {
      wellFormed(validateProperties([value]));
      wellFormed(validateNodeDescription({ properties: [value], hints: [value], methods: value }));
    }), { numRuns: RUNS });
  });

  it('never throw on near-valid definitions, nested ones included', () => {
    fc.assert(fc.property(fc.array(nearDefinition, { maxLength: 6 }), (definitions) => {
      const nested = definitions.map((definition) => ({ ...definition, options: definitions }));
      wellFormed(validateProperties(definitions));
      wellFormed(validateProperties(nested));
    }), { numRuns: RUNS });
  });
});
