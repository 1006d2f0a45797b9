import { expect } from 'chai';
import { FINDING_CODES, validateProperties, type Finding } from '../../lib/definitions/index.js';

import { NAMES_AND_DISPLAY, OPTION_ENTRIES, SEED_RULES, TOLERATED_DEFAULTS, type Case, type Def } from './rule-cases.js';

const str = (extra: Def = {}): Def => ({ displayName: 'Field', name: 'field', type: 'string', default: '', ...extra });
const opts = (extra: Def = {}): Def => ({ displayName: 'Speed', name: 'speed', type: 'options', default: 'slow', options: [{ name: 'Slow', value: 'slow' }, { name: 'Medium', value: 'medium' }], ...extra });
const rl = (modes: unknown[], extra: Def = {}): Def => ({ displayName: 'Sheet', name: 'sheet', type: 'resourceLocator', default: { mode: 'list', value: '' }, modes, ...extra });
const listMode = { displayName: 'From list', name: 'list', type: 'list', typeOptions: { searchListMethod: 'searchSheets' } };
const mapper = (options: Def, extra: Def = {}): Def => ({ displayName: 'Columns', name: 'columns', type: 'resourceMapper', default: { mappingMode: 'defineBelow', value: null }, typeOptions: { resourceMapper: { resourceMapperMethod: 'getColumns', mode: 'add', ...options } }, ...extra });
/** A collection holding a collection… `levels` deep, a string field at the bottom. */
const nested = (levels: number): Def => {
  let definition: Def = str();
  for (let level = 0; level < levels; level += 1) definition = { displayName: `C${level}`, name: `c${level}`, type: 'collection', default: {}, options: [definition] };
  return definition;
};
/** A definition whose name getter throws: what a hostile or broken JS object does when the validator reads it. */
const hostile = (): Def => {
  const definition = str();
  Object.defineProperty(definition, 'name', { enumerable: true, get() { throw new Error('no peeking'); } });
  return definition;
};

const CASES: Case[] = [
  { rule: 'displayName, name and type are present', valid: [str()], invalid: [{ name: 'x', type: 'string', default: '' }], code: 'missing-field', path: '/properties/0/displayName', message: /displayName is missing/ },
  { rule: 'default is present', valid: [str()], invalid: [{ displayName: 'X', name: 'x', type: 'string' }], code: 'missing-field', path: '/properties/0/default', message: /default is missing/ },
  { rule: 'the type is an element type', valid: [str()], invalid: [str({ type: 'textarea' })], code: 'unknown-type', path: '/properties/0/type', message: /type 'textarea' is not an element type/ },
  { rule: 'a platform-only type is a warning', valid: [str()], invalid: [str({ type: 'hidden' })], code: 'platform-only-type', severity: 'warning', path: '/properties/0/type', message: /not one of the 15 element types/ },
  { rule: 'a collection default is an object', valid: [{ displayName: 'C', name: 'c', type: 'collection', default: {}, options: [] }], invalid: [{ displayName: 'C', name: 'c', type: 'collection', default: [], options: [] }], code: 'default-wrong-shape', path: '/properties/0/default', message: /default \[\] must be an object/ },
  { rule: 'a collection default is empty', valid: [{ displayName: 'C', name: 'c', type: 'collection', default: {}, options: [] }], invalid: [{ displayName: 'C', name: 'c', type: 'collection', default: { label: '' }, options: [] }], code: 'collection-default-not-empty', severity: 'warning', path: '/properties/0/default', message: /should be \{\}/ },
  { rule: 'a fixedCollection default is an object, [] only warned', valid: [{ displayName: 'F', name: 'f', type: 'fixedCollection', default: {}, options: [] }], invalid: [{ displayName: 'F', name: 'f', type: 'fixedCollection', default: 'x', options: [] }], code: 'default-wrong-shape', path: '/properties/0/default', message: /must be an object/ },
  { rule: 'a fixedCollection default of [] is a warning', valid: [{ displayName: 'F', name: 'f', type: 'fixedCollection', default: {}, options: [] }], invalid: [{ displayName: 'F', name: 'f', type: 'fixedCollection', default: [], options: [] }], code: 'default-not-object', severity: 'warning', path: '/properties/0/default', message: /\{\} is what the editor stores/ },
  { rule: 'a multiOptions default is an array', valid: [opts({ type: 'multiOptions', default: [] })], invalid: [opts({ type: 'multiOptions', default: 'slow' })], code: 'default-wrong-shape', path: '/properties/0/default', message: /must be an array/ },
  { rule: 'a boolean default is a boolean', valid: [{ displayName: 'B', name: 'b', type: 'boolean', default: false }], invalid: [{ displayName: 'B', name: 'b', type: 'boolean', default: 'false' }], code: 'default-wrong-shape', path: '/properties/0/default', message: /default 'false' must be a boolean/ },
  { rule: "a number default is a number, '' or null", valid: [{ displayName: 'N', name: 'n', type: 'number', default: '' }, { displayName: 'M', name: 'm', type: 'number', default: null }], invalid: [{ displayName: 'N', name: 'n', type: 'number', default: '5' }], code: 'default-wrong-shape', path: '/properties/0/default', message: /default '5' must be a number/ },
  { rule: 'options need a list or a load method', valid: [opts(), { displayName: 'L', name: 'l', type: 'options', default: '', typeOptions: { loadOptionsMethod: 'getLists' } }], invalid: [{ displayName: 'L', name: 'l', type: 'options', default: '' }], code: 'options-missing', path: '/properties/0/options', message: /no options list and no load method/ },
  { rule: 'option entries have name and value', valid: [opts({ options: [{ name: 'A', value: 'a', displayName: 'A' }] , default: 'a' })], invalid: [opts({ options: [{ name: 'A' }], default: '' })], code: 'missing-field', path: '/properties/0/options/0/value', message: /value is missing/ },
  { rule: "an options default is one of the values ('' and expressions allowed)", valid: [opts({ default: '' }), opts({ default: '={{ $json.speed }}' })], invalid: [opts({ default: 'fast' })], code: 'default-not-an-option', path: '/properties/0/default', message: /^properties\/0 \(options 'speed'\): default 'fast' is not one of the option values 'slow', 'medium'$/ },
  { rule: 'a multiOptions default holds only option values', valid: [opts({ type: 'multiOptions', default: ['slow'] })], invalid: [opts({ type: 'multiOptions', default: ['slow', 'warp'] })], code: 'default-not-an-option', path: '/properties/0/default/1', message: /'warp' is not one of/ },
  { rule: 'minValue is not above maxValue', valid: [{ displayName: 'N', name: 'n', type: 'number', default: 1, typeOptions: { minValue: 1, maxValue: 5 } }], invalid: [{ displayName: 'N', name: 'n', type: 'number', default: 1, typeOptions: { minValue: 9, maxValue: 5 } }], code: 'min-above-max', path: '/properties/0/typeOptions/minValue', message: /minValue 9 is above maxValue 5/ },
  { rule: 'numberPrecision is a non-negative integer', valid: [{ displayName: 'N', name: 'n', type: 'number', default: 1, typeOptions: { numberPrecision: 2 } }], invalid: [{ displayName: 'N', name: 'n', type: 'number', default: 1, typeOptions: { numberPrecision: 1.5 } }], code: 'wrong-type', path: '/properties/0/typeOptions/numberPrecision', message: /numberPrecision must be an integer/ },
  { rule: 'a number default within the range', valid: [{ displayName: 'N', name: 'n', type: 'number', default: 3, typeOptions: { minValue: 1, maxValue: 5 } }], invalid: [{ displayName: 'N', name: 'n', type: 'number', default: 9, typeOptions: { minValue: 1, maxValue: 5 } }], code: 'default-out-of-range', severity: 'warning', path: '/properties/0/default', message: /default 9 is above maxValue 5/ },
  { rule: "a password field's default is ''", valid: [str({ typeOptions: { password: true }, required: true })], invalid: [str({ typeOptions: { password: true }, required: true, default: 'hunter2' })], code: 'password-default', path: '/properties/0/default', message: /must be ''/ },
  { rule: 'a password field should be required', valid: [str({ typeOptions: { password: true }, required: true })], invalid: [str({ typeOptions: { password: true } })], code: 'password-not-required', severity: 'warning', path: '/properties/0/required', message: /should be required: true/ },
  { rule: 'rows is a positive integer', valid: [str({ typeOptions: { rows: 4 } })], invalid: [str({ typeOptions: { rows: 0 } })], code: 'out-of-range', path: '/properties/0/typeOptions/rows', message: /rows must be at least 1; got 0/ },
  { rule: 'requiresDataPath is single or multiple', valid: [str({ requiresDataPath: 'multiple' })], invalid: [str({ requiresDataPath: 'many' })], code: 'invalid-value', path: '/properties/0/requiresDataPath', message: /must be one of 'single', 'multiple'; got 'many'/ },
  { rule: 'an HTML editor blocks expressions', valid: [str({ typeOptions: { editor: 'htmlEditor' }, noDataExpression: true })], invalid: [str({ typeOptions: { editor: 'htmlEditor' } })], code: 'html-editor-expression', severity: 'warning', path: '/properties/0/noDataExpression', message: /noDataExpression: true/ },
  { rule: 'unknown typeOptions keys are named with a guess', valid: [str({ typeOptions: { rows: 2 } })], invalid: [{ displayName: 'N', name: 'n', type: 'number', default: 1, typeOptions: { minVale: 1 } }], code: 'unknown-type-option', severity: 'warning', path: '/properties/0/typeOptions/minVale', message: /did you mean minValue\?/ },
  { rule: 'fixedCollection groups have name, displayName and values', valid: [{ displayName: 'F', name: 'f', type: 'fixedCollection', default: {}, options: [{ name: 'g', displayName: 'G', values: [] }] }], invalid: [{ displayName: 'F', name: 'f', type: 'fixedCollection', default: {}, options: [{ name: 'g', values: [] }] }], code: 'missing-field', path: '/properties/0/options/0/displayName', message: /displayName is missing/ },
  { rule: 'fixedCollection group names are unique', valid: [{ displayName: 'F', name: 'f', type: 'fixedCollection', default: {}, options: [{ name: 'a', displayName: 'A', values: [] }, { name: 'b', displayName: 'B', values: [] }] }], invalid: [{ displayName: 'F', name: 'f', type: 'fixedCollection', default: {}, options: [{ name: 'a', displayName: 'A', values: [] }, { name: 'a', displayName: 'B', values: [] }] }], code: 'group-name-duplicate', path: '/properties/0/options/1/name', message: /both named 'a'/ },
  { rule: 'resource locator modes have displayName and name', valid: [rl([listMode])], invalid: [rl([{ name: 'list', type: 'list', typeOptions: { searchListMethod: 'x' } }])], code: 'missing-field', path: '/properties/0/modes/0/displayName', message: /displayName is missing/ },
  { rule: 'a mode type is string or list', valid: [rl([listMode])], invalid: [rl([listMode, { displayName: 'URL', name: 'url', type: 'link' }])], code: 'invalid-value', path: '/properties/0/modes/1/type', message: /must be one of 'string', 'list'/ },
  { rule: 'mode names are unique', valid: [rl([listMode])], invalid: [rl([listMode, { ...listMode, displayName: 'Again' }])], code: 'mode-name-duplicate', path: '/properties/0/modes/1/name', message: /both named 'list'/ },
  { rule: 'a list mode names its search method', valid: [rl([listMode])], invalid: [rl([{ displayName: 'From list', name: 'list', type: 'list' }])], code: 'list-mode-without-search-method', path: '/properties/0/modes/0/typeOptions', message: /no typeOptions.searchListMethod/ },
  { rule: 'the search method exists when methods are given', valid: [rl([listMode])], invalid: [rl([{ ...listMode, typeOptions: { searchListMethod: 'searchTabs' } }])], methods: { listSearch: ['searchSheets'] }, code: 'unknown-method', path: '/properties/0/modes/0/typeOptions/searchListMethod', message: /'searchTabs', which is not in the node's methods.listSearch/ },
  { rule: 'validation regexes compile', valid: [rl([listMode, { displayName: 'ID', name: 'id', type: 'string', validation: [{ type: 'regex', properties: { regex: '[0-9]+', errorMessage: 'Not an ID' } }] }])], invalid: [rl([listMode, { displayName: 'ID', name: 'id', type: 'string', validation: [{ type: 'regex', properties: { regex: '[0-9', errorMessage: 'Not an ID' } }] }])], code: 'regex-invalid', path: '/properties/0/modes/1/validation/0/properties/regex', message: /does not compile/ },
  { rule: 'extractValue has exactly one capture group', valid: [rl([listMode, { displayName: 'URL', name: 'url', type: 'string', extractValue: { type: 'regex', regex: 'https://x.com/d/([a-z]+)' } }])], invalid: [rl([listMode, { displayName: 'URL', name: 'url', type: 'string', extractValue: { type: 'regex', regex: 'https://x.com/d/[a-z]+' } }])], code: 'extract-value-groups', path: '/properties/0/modes/1/extractValue/regex', message: /has 0 capture groups; it needs exactly one/ },
  { rule: 'a resource mapper default is { mappingMode, value: null }', valid: [mapper({})], invalid: [mapper({}, { default: { mappingMode: 'manual', value: null } })], code: 'resource-mapper-default', path: '/properties/0/default', message: /mappingMode: 'defineBelow' \| 'autoMapInputData'/ },
  { rule: 'exactly one resource mapper method', valid: [mapper({}), mapper({ resourceMapperMethod: undefined, localResourceMapperMethod: 'local' })], invalid: [mapper({ localResourceMapperMethod: 'local' })], code: 'resource-mapper-method', path: '/properties/0/typeOptions/resourceMapper', message: /both resourceMapperMethod and localResourceMapperMethod/ },
  { rule: 'the resource mapper mode is add, update, upsert or map', valid: [mapper({ mode: 'map' })], invalid: [mapper({ mode: 'delete' })], code: 'invalid-value', path: '/properties/0/typeOptions/resourceMapper/mode', message: /must be one of 'add', 'update', 'upsert', 'map'/ },
  { rule: 'multiKeyMatch does nothing in add mode', valid: [mapper({ mode: 'update', multiKeyMatch: true })], invalid: [mapper({ multiKeyMatch: true })], code: 'multi-key-match-in-add', severity: 'warning', path: '/properties/0/typeOptions/resourceMapper/multiKeyMatch', message: /only applies to 'update' and 'upsert'/ },
  { rule: 'supportAutoMap false goes with defineBelow', valid: [mapper({ supportAutoMap: false })], invalid: [mapper({ supportAutoMap: false }, { default: { mappingMode: 'autoMapInputData', value: null } })], code: 'auto-map-default', severity: 'warning', path: '/properties/0/default/mappingMode', message: /never used/ },
  { rule: 'displayOptions values are arrays', valid: [str({ displayOptions: { show: { resource: ['file'] } } })], invalid: [str({ displayOptions: { show: { resource: 'file' } } })], code: 'display-options-invalid', path: '/properties/0/displayOptions/show/resource', message: /must be an array of values/ },
  { rule: '_cnd operators are known', valid: [str({ displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } } })], invalid: [str({ displayOptions: { hide: { '@version': [{ _cnd: { above: 2 } }] } } })], code: 'unknown-condition-operator', path: '/properties/0/displayOptions/hide/@version/0/_cnd/above', message: /unknown operator 'above'/ },
  { rule: 'siblings with one name are never shown together', valid: [str({ displayOptions: { show: { resource: ['a'] } } }), str({ displayOptions: { show: { resource: ['b'] } } })], invalid: [str({ displayOptions: { show: { resource: ['a'], operation: ['get'] } } }), str({ displayOptions: { show: { resource: ['a', 'b'] } } })], code: 'duplicate-name', path: '/properties/1/name', message: /same name as properties\/0/ },
  { rule: 'resource and operation options block expressions', valid: [opts({ name: 'resource', noDataExpression: true })], invalid: [opts({ name: 'resource' })], code: 'no-data-expression-missing', severity: 'warning', path: '/properties/0/noDataExpression', message: /should set noDataExpression: true/ },
  { rule: 'required: false is not written out', valid: [str()], invalid: [str({ required: false })], code: 'required-false', severity: 'warning', path: '/properties/0/required', message: /is the default/ },
  { rule: 'nesting stops at 32 levels', valid: [nested(31)], invalid: [nested(40)], code: 'too-deep', path: `/properties/0${'/options/0'.repeat(32)}`, message: /nests more than 32 levels/ },
  { rule: 'an input that throws when read is reported, not thrown', valid: [str()], invalid: [hostile()], code: 'unreadable', path: '', message: /^the input could not be checked: no peeking$/ },
  ...TOLERATED_DEFAULTS, ...OPTION_ENTRIES, ...NAMES_AND_DISPLAY, ...SEED_RULES,
];

function findingsOf(definitions: Def[], methods?: Def, version?: number[]): Finding[] {
  const result = validateProperties(definitions, { ...(methods === undefined ? {} : { methods: methods as never }), ...(version === undefined ? {} : { version }) });
  return [...result.errors, ...result.warnings];
}

/**
 * invalid-structure is the fallback for a schema keyword without a message of its own (structure.ts message()):
 * every keyword the schema uses today has one or is skipped (`if`, propertyNames, display options), so no input
 * reaches it; a new keyword would.
 */
const ELSEWHERE = ['invalid-structure'];

describe('definition rules', () => {
  it('have a flagged and a passing fixture for every finding code', () => {
    expect(FINDING_CODES.filter((code) => !ELSEWHERE.includes(code) && !CASES.some((testCase) => testCase.code === code))).to.deep.equal([]);
  });

  for (const testCase of CASES) {
    describe(testCase.rule, () => {
      it('stays silent on a valid definition', () => {
        const codes = findingsOf(testCase.valid, testCase.methods, testCase.version).map((finding) => finding.code);
        expect(codes).to.not.include(testCase.code);
      });

      it(`reports ${testCase.code} at ${testCase.path} for an invalid one`, () => {
        const found = findingsOf(testCase.invalid, testCase.methods, testCase.version);
        const finding = found.find((candidate) => candidate.code === testCase.code);
        expect(finding, JSON.stringify(found)).to.not.equal(undefined);
        expect(finding).to.include({ path: testCase.path, severity: testCase.severity ?? 'error' });
        expect(finding?.message).to.match(testCase.message);
      });
    });
  }
});
