/**
 * What refuses a schema before it is compiled, at each bound's very edge: its JSON text's size and nesting (braces in
 * strings are text, not nesting), subschemas side by side in one object, and its patterns' programs together.
 */
import { expect } from 'chai';
import type { JsonSchema } from '../../../../lib/index.js';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_PROGRAM, MAX_SCHEMA_SIZE, MAX_SIDE_BY_SIDE } from '../../../../lib/webhooks/registry/json-schema/bounds.js';
import { compileJsonSchema } from '../../../../lib/webhooks/registry/json-schema/compile.js';

function refusal(schema: JsonSchema): string | undefined {
  try {
    compileJsonSchema(schema, false);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A schema whose JSON text is exactly `size` characters long. */
function ofSize(size: number): JsonSchema {
  const base = JSON.stringify({ description: '' }).length;
  return { description: 'x'.repeat(size - base) };
}

function nested(levels: number): JsonSchema {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 1; level < levels; level++) schema = { items: schema };
  return schema;
}

describe('what refuses a schema before it is compiled', () => {
  it('takes a schema of exactly the size bound, and refuses one character more', () => {
    expect(refusal(ofSize(MAX_SCHEMA_SIZE))).to.equal(undefined);
    expect(refusal(ofSize(MAX_SCHEMA_SIZE + 1))).to.include(`larger than ${MAX_SCHEMA_SIZE}`);
  });

  it('takes a schema nested exactly as deep as the bound, refuses one level more, and counts no brace inside a string', () => {
    expect(refusal(nested(MAX_SCHEMA_DEPTH))).to.equal(undefined);
    expect(refusal(nested(MAX_SCHEMA_DEPTH + 1))).to.include(`nests deeper than ${MAX_SCHEMA_DEPTH}`);
    expect(refusal({ description: '{'.repeat(100) + '[\\"'.repeat(50), title: ']}"'.repeat(40) })).to.equal(undefined);
  });

  it('takes a schema 32 levels deep, as docs/payload-schemas.md promises, and refuses 33', () => {
    // Counted here without the bound's constant, so a bound moved either way is seen.
    expect(refusal(nested(32))).to.equal(undefined);
    expect(refusal(nested(33))).to.equal('nests deeper than 32 levels');
  });

  it('refuses an object holding more subschemas side by side than ajv can nest, naming it, but not its stored definitions', () => {
    const properties = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, {}]));
    expect(refusal({ type: 'object', properties: properties(MAX_SIDE_BY_SIDE) })).to.equal(undefined);
    expect(refusal({ type: 'object', properties: properties(MAX_SIDE_BY_SIDE + 1) })).to.include('side by side at #');
    expect(refusal({ allOf: [{ properties: properties(MAX_SIDE_BY_SIDE + 1) }] })).to.include('at #/allOf/0');
    expect(refusal({ $defs: properties(MAX_SIDE_BY_SIDE + 1), type: 'object' })).to.equal(undefined);
  });

  it('adds up the programs of every pattern and pattern property of a schema, and refuses past the bound', () => {
    const each = '^\\w{0,450}$';
    const count = Math.ceil(MAX_SCHEMA_PROGRAM / 900);
    const patterns = Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, { type: 'string', pattern: `${each}${index}` }]));
    expect(refusal({ type: 'object', properties: patterns })).to.include('together compile');
    const keys = Object.fromEntries(Array.from({ length: count }, (_, index) => [`${each}${index}`, true]));
    expect(refusal({ type: 'object', patternProperties: keys })).to.include('together compile');
    expect(refusal({ type: 'object', properties: Object.fromEntries(Object.entries(patterns).slice(0, count - 2)) })).to.equal(undefined);
  });
});
