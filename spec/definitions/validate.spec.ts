import { expect } from 'chai';
import { validateNodeDescription, validateProperties, WEBHOOK_NODE_DESCRIPTION } from '../../lib/definitions/index.js';

const text = (name: string, extra: Record<string, unknown> = {}) => ({ displayName: name, name, type: 'string', default: '', ...extra });

describe('validateProperties()', () => {
  it('answers { valid, errors, warnings }, valid when only warnings remain', () => {
    const result = validateProperties([text('a', { required: false })]);
    expect(result).to.have.all.keys('valid', 'errors', 'warnings');
    expect(result.valid).to.equal(true);
    expect(result.warnings).to.have.length(1);
  });

  it('reports every error at once', () => {
    const result = validateProperties([
      { displayName: 'A', name: 'a', type: 'options', default: 'x', options: [{ name: 'Y', value: 'y' }] },
      { displayName: 'B', name: 'b', type: 'boolean', default: 'no' },
      { name: 'c', type: 'string', default: '' },
    ]);
    expect(result.errors.map((e) => e.path)).to.have.members(['/properties/0/default', '/properties/1/default', '/properties/2/displayName']);
  });

  it('walks into collections and fixedCollection groups with full paths', () => {
    const result = validateProperties([{
      displayName: 'Options', name: 'options', type: 'collection', default: {},
      options: [{
        displayName: 'Headers', name: 'headers', type: 'fixedCollection', default: {},
        options: [{ name: 'entry', displayName: 'Entry', values: [{ displayName: 'Level', name: 'level', type: 'number', default: 'high' }] },
          { name: 'entry', displayName: 'Again', values: [] }],
      }],
    }]);
    expect(result.errors.map((e) => [e.code, e.path])).to.deep.equal([
      ['group-name-duplicate', '/properties/0/options/0/options/1/name'],
      ['default-wrong-shape', '/properties/0/options/0/options/0/values/0/default'],
    ]);
    expect(result.errors[1]?.message).to.match(/^properties\/0\/options\/0\/options\/0\/values\/0 \(number 'level'\): /);
  });

  it('checks load and mapping methods against the node\'s methods, names or functions', () => {
    const definitions = [
      { displayName: 'List', name: 'list', type: 'options', default: '', typeOptions: { loadOptionsMethod: 'getLists' } },
      { displayName: 'Columns', name: 'columns', type: 'resourceMapper', default: { mappingMode: 'defineBelow', value: null }, typeOptions: { resourceMapper: { resourceMapperMethod: 'getColumns', mode: 'upsert' } } },
    ];
    expect(validateProperties(definitions).valid).to.equal(true);
    expect(validateProperties(definitions, { methods: { loadOptions: { getLists: () => [] }, resourceMapping: ['getColumns'] } }).valid).to.equal(true);
    const result = validateProperties(definitions, { methods: { loadOptions: ['getBoards'], resourceMapping: [] } });
    expect(result.errors.map((e) => e.code)).to.deep.equal(['unknown-method', 'unknown-method']);
    expect(result.errors[0]?.message).to.include("'getLists' is not a method in the node's methods.loadOptions");
  });

  it('turns the spec\'s recommendations into errors with strict', () => {
    const password = [text('apiKey', { typeOptions: { password: true } })];
    expect(validateProperties(password).valid).to.equal(true);
    const strict = validateProperties(password, { strict: true });
    expect(strict.valid).to.equal(false);
    expect(strict.errors[0]?.code).to.equal('password-not-required');
  });

  it('stays silent on what real, working nodes do', () => {
    const result = validateProperties([
      { displayName: 'Resource', name: 'resource', type: 'options', noDataExpression: true, default: '', options: [{ name: 'File', value: 'file' }, { name: 'Folder', value: 'folder' }] },
      { displayName: 'Hour', name: 'hour', type: 'options', default: 1, options: [{ name: '1am', displayName: '1am', value: 1 }] },
      { displayName: 'Limit', name: 'limit', type: 'number', default: '', typeOptions: { minValue: 1 } },
      { displayName: 'Timestamp', name: 'ts', type: 'number', default: null },
      { displayName: 'Mode', name: 'mode', type: 'options', default: '={{ $json.mode }}', options: [{ name: 'A', value: 'a' }] },
      { displayName: 'Sheet', name: 'sheet', type: 'resourceLocator', default: '', modes: [{ displayName: 'ID', name: 'id', type: 'string' }] },
      { displayName: 'When', name: 'when', type: 'dateTime', default: '' },
      { displayName: 'Text', name: 'text', type: 'string', default: '', displayOptions: { show: { resource: ['file'], '@version': [1] } } },
      { displayName: 'Text', name: 'text', type: 'string', default: '', displayOptions: { show: { resource: ['file'], '@version': [{ _cnd: { gte: 2 } }] } } },
      { displayName: 'Text', name: 'text', type: 'string', default: '', displayOptions: { show: { resource: ['folder'] } } },
      { displayName: 'Note', name: 'note', type: 'notice', default: '' },
    ]);
    expect(result.errors).to.deep.equal([]);
    expect(result.warnings).to.deep.equal([]);
  });

  it('catches an options field with no options and a default naming no option', () => {
    const result = validateProperties([
      { displayName: 'Type', name: 'type', type: 'options', default: '' },
      { displayName: 'Size', name: 'size', type: 'options', default: 'xl', options: [{ name: 'Small', value: 's' }] },
    ]);
    expect(result.errors.map((e) => e.code)).to.deep.equal(['options-missing', 'default-not-an-option']);
  });

  it('reports a name shared by siblings whose version ranges overlap, not by those whose ranges do not', () => {
    const v = (cnd: unknown) => text('x', { displayOptions: { show: { '@version': [cnd] } } });
    expect(validateProperties([v({ _cnd: { lt: 2 } }), v({ _cnd: { gte: 2 } })]).valid).to.equal(true);
    expect(validateProperties([v({ _cnd: { lte: 2 } }), v({ _cnd: { gte: 2 } })], { version: [1, 2, 3] }).errors[0]?.code).to.equal('duplicate-name');
    // Without the node's versions, version 2 may not exist: only a warning.
    expect(validateProperties([v({ _cnd: { lte: 2 } }), v({ _cnd: { gte: 2 } })]).warnings[0]?.code).to.equal('duplicate-name-possible');
    expect(validateProperties([v({ _cnd: { lte: 2 } }), v({ _cnd: { gte: 2 } })], { version: [1, 3] }).warnings).to.deep.equal([]);
    expect(validateProperties([v({ _cnd: { between: { from: 1, to: 3 } } }), v(4)]).valid).to.equal(true);
    expect(validateProperties([text('x', { displayOptions: { show: { a: ['1'] } } }), text('x', { displayOptions: { hide: { a: ['1'] } } })]).valid).to.equal(true);
  });

  it('refuses input that is not an array, without throwing', () => {
    expect(validateProperties({} as never)).to.deep.equal({
      valid: false, errors: [{ path: '/properties', code: 'wrong-type', severity: 'error', message: 'properties must be an array of property definitions' }], warnings: [],
    });
  });

  it('reports a cyclic JS description as unreadable instead of looping or throwing', () => {
    const looping: Record<string, unknown> = { displayName: 'C', name: 'c', type: 'collection', default: {} };
    looping.options = [looping];
    const result = validateProperties([looping]);
    expect(result.valid).to.equal(false);
    // The schema check meets the cycle first (its recursion ends the stack), so it is `unreadable`, not `too-deep`.
    expect(result.errors.map((error) => [error.code, error.path])).to.deep.equal([['unreadable', '']]);
  });
});

describe('validateNodeDescription()', () => {
  it('checks hints, with paths into hints', () => {
    const result = validateNodeDescription({ properties: [], hints: [{ message: 'ok' }, { message: 'bad', type: 'error', location: 'sidebar', whenToDisplay: 'later' }] });
    expect(result.errors.map((e) => e.path)).to.deep.equal(['/hints/1/type', '/hints/1/location', '/hints/1/whenToDisplay']);
    expect(result.errors[0]?.message).to.equal("hints/1: type must be one of 'info', 'warning', 'danger'; got 'error'");
  });

  it('takes method names from the description', () => {
    const result = validateNodeDescription({
      properties: [{ displayName: 'Sheet', name: 'sheet', type: 'resourceLocator', default: { mode: 'list', value: '' }, modes: [{ displayName: 'List', name: 'list', type: 'list', typeOptions: { searchListMethod: 'searchSheets' } }] }],
      methods: { listSearch: { searchSheets: () => [] } },
    });
    expect(result).to.deep.equal({ valid: true, errors: [], warnings: [] });
  });

  it('finds the Webhook node\'s own description clean', () => {
    expect(validateNodeDescription(WEBHOOK_NODE_DESCRIPTION, { strict: true })).to.deep.equal({ valid: true, errors: [], warnings: [] });
  });

  it('refuses a description without properties', () => {
    expect(validateNodeDescription({ name: 'x' }).errors[0]).to.include({ code: 'missing-field', path: '/properties' });
    expect(validateNodeDescription('nope').valid).to.equal(false);
  });
});

describe('what JS descriptions hold', () => {
  it('accepts an extractValue given as a RegExp, and still counts its groups', () => {
    const locator = (regex: unknown) => [{ displayName: 'L', name: 'l', type: 'resourceLocator', default: { mode: 'url', value: '' },
      modes: [{ displayName: 'URL', name: 'url', type: 'string', extractValue: { type: 'regex', regex } }] }];
    expect(validateProperties(locator(/https:\/\/x\.com\/([a-z]+)/)).valid).to.equal(true);
    expect(validateProperties(locator(/https:\/\/x\.com\/[a-z]+/)).errors[0]?.code).to.equal('extract-value-groups');
    expect(validateProperties(locator(42)).errors[0]?.code).to.equal('wrong-type');
  });

  it('warns about an editor it does not know, with a guess', () => {
    const result = validateProperties([{ displayName: 'Code', name: 'code', type: 'string', default: '', typeOptions: { editor: 'jsEdtor' } }]);
    expect(result.valid).to.equal(true);
    expect(result.warnings[0]?.message).to.match(/did you mean jsEditor\?/);
  });
});
