import { expect } from 'chai';
import { applyResourceMapping, checkResourceMapperFields, resolveMatchingColumns, type ResourceMapperField } from '../../lib/definitions/index.js';

const field = (id: string, extra: Partial<ResourceMapperField> = {}): ResourceMapperField =>
  ({ id, displayName: id.toUpperCase(), defaultMatch: false, required: false, display: true, type: 'string', ...extra });

describe('checkResourceMapperFields()', () => {
  it('accepts fields that keep the contract, from { fields } or a bare list', () => {
    const fields = [field('id', { defaultMatch: true, canBeUsedToMatch: true, type: 'number' }), field('status', { type: 'options', options: [{ name: 'Open', value: 'open' }] })];
    expect(checkResourceMapperFields({ fields })).to.deep.equal({ fields, issues: [] });
    expect(checkResourceMapperFields(fields).issues).to.deep.equal([]);
  });

  it('reports every broken field with its path, and keeps the good ones', () => {
    const outcome = checkResourceMapperFields({ fields: [field('ok'), { id: 7, displayName: 'X', required: 'yes', display: true }, field('t', { type: 'money' as never }), field('ok')] });
    expect(outcome.fields.map((f) => f.id)).to.deep.equal(['ok', 'ok']);
    expect(outcome.issues.map((i) => [i.path, i.code])).to.deep.equal([
      ['/fields/1/id', 'missing-field'], ['/fields/1/defaultMatch', 'missing-field'], ['/fields/1/required', 'missing-field'],
      ['/fields/2/type', 'invalid-value'], ['/fields/1/id', 'duplicate-id'],
    ]);
  });

  it('gives the definition\'s noFieldsError when the call succeeds with no fields', () => {
    expect(checkResourceMapperFields({ fields: [] }, { noFieldsError: 'This table has no columns yet' })).to.deep.equal({ fields: [], issues: [], notice: 'This table has no columns yet' });
    expect(checkResourceMapperFields({ fields: [] })).to.deep.equal({ fields: [], issues: [] });
  });

  it('reports a result without a field list', () => {
    expect(checkResourceMapperFields({ rows: [] }).issues[0]?.code).to.equal('wrong-type');
  });
});

describe('applyResourceMapping()', () => {
  const fields = [
    field('name', { required: true }), field('age', { type: 'number' }), field('active', { type: 'boolean' }), field('born', { type: 'dateTime' }),
    field('opens', { type: 'time' }), field('tags', { type: 'array' }), field('meta', { type: 'object' }),
    field('plan', { type: 'options', options: [{ name: 'Free', value: 'free' }, { name: 'Pro', value: 'pro' }] }),
    field('secret', { display: false }), field('old', { removed: true }),
  ];

  it('maps input keys onto field ids with autoMapInputData, converting per type and skipping hidden and removed fields', () => {
    const { items, issues } = applyResourceMapping({ mode: 'add' }, fields, { mappingMode: 'autoMapInputData', value: null }, [{
      name: 'Ada', age: '36', active: 'yes', born: '1815-12-10', opens: '09:30', tags: '["a","b"]', meta: { k: 1 }, plan: 'pro', secret: 'x', old: 'y', extra: 'z',
    }]);
    expect(issues).to.deep.equal([]);
    expect(items).to.deep.equal([{ name: 'Ada', age: 36, active: true, born: '1815-12-10T00:00:00.000Z', opens: '09:30', tags: ['a', 'b'], meta: { k: 1 }, plan: 'pro' }]);
  });

  it('takes the user\'s values with defineBelow', () => {
    const { items } = applyResourceMapping({ mode: 'update' }, fields, { mappingMode: 'defineBelow', value: { name: 'Grace', age: 85 } }, [{ name: 'ignored' }]);
    expect(items).to.deep.equal([{ name: 'Grace', age: 85 }]);
  });

  it('reports values that cannot be converted, with the item', () => {
    const { issues } = applyResourceMapping({ mode: 'update' }, fields, { mappingMode: 'autoMapInputData', value: null }, [{ name: 'x' }, { age: 'old', opens: '25:00', plan: 'gold' }]);
    expect(issues.map((i) => i.message)).to.deep.equal([
      "Invalid input for 'AGE' [item 1]: 'AGE' expects a number but we got 'old'",
      "Invalid input for 'OPENS' [item 1]: 'OPENS' expects time (hh:mm(:ss)) but we got '25:00'",
      "Invalid input for 'PLAN' [item 1]: 'PLAN' expects one of the following values: [free, pro] but we got 'gold'",
    ]);
  });

  it('reports required fields that stay empty when rows are created, in the definition\'s words', () => {
    const { issues } = applyResourceMapping({ mode: 'add', fieldWords: { singular: 'column', plural: 'columns' } }, fields, { mappingMode: 'defineBelow', value: { age: 3 } }, [{}]);
    expect(issues.map((i) => i.message)).to.deep.equal(['Column "name" is required [item 0]']);
    expect(applyResourceMapping({ mode: 'update' }, fields, { mappingMode: 'defineBelow', value: {} }, [{}]).issues).to.deep.equal([]);
  });
});

describe('resolveMatchingColumns()', () => {
  const fields = [field('id', { defaultMatch: true }), field('email', { defaultMatch: true }), field('note', { canBeUsedToMatch: false }), field('hidden', { display: false })];

  it('pre-selects defaultMatch columns, one of them without multiKeyMatch', () => {
    expect(resolveMatchingColumns({ mode: 'update' }, fields)).to.deep.equal({ columns: ['id'], issues: [] });
    expect(resolveMatchingColumns({ mode: 'upsert', multiKeyMatch: true }, fields)).to.deep.equal({ columns: ['id', 'email'], issues: [] });
  });

  it('refuses columns that cannot match, and several without multiKeyMatch', () => {
    expect(resolveMatchingColumns({ mode: 'update' }, fields, ['note']).issues.map((i) => i.code)).to.deep.equal(['not-matchable', 'no-matching-column']);
    expect(resolveMatchingColumns({ mode: 'update' }, fields, ['id', 'email']).issues.map((i) => i.code)).to.deep.equal(['single-key']);
    expect(resolveMatchingColumns({ mode: 'update', multiKeyMatch: true }, fields, ['id', 'email']).columns).to.deep.equal(['id', 'email']);
  });

  it('has no matching columns in add mode', () => {
    expect(resolveMatchingColumns({ mode: 'add' }, fields)).to.deep.equal({ columns: [], issues: [] });
  });
});
