/**
 * Fixtures for rules.spec.ts: for each rule, definitions shaped like real nodes that must pass, and a broken one
 * that must be flagged at a pointer. Written for these tests (the shapes follow how working nodes are built).
 */
export type Def = Record<string, unknown>;

export interface Case {
  rule: string;
  valid: Def[];
  invalid: Def[];
  code: string;
  severity?: 'error' | 'warning';
  path: string;
  message: RegExp;
  methods?: Def;
  version?: number[];
}

const resource: Def = {
  displayName: 'Resource', name: 'resource', type: 'options', noDataExpression: true, default: 'ticket',
  options: [{ name: 'Ticket', value: 'ticket' }, { name: 'User', value: 'user' }],
};
const operation = (forResource: string, values: string[]): Def => ({
  displayName: 'Operation', name: 'operation', type: 'options', noDataExpression: true, default: values[0],
  displayOptions: { show: { resource: [forResource] } },
  options: values.map((value) => ({ name: value, value, action: `${value} a ${forResource}` })),
});
const shownFor = (name: string, show: Def, extra: Def = {}): Def => ({ displayName: name, name, type: 'string', default: '', displayOptions: { show }, ...extra });
const locator = (mode: Def): Def => ({ displayName: 'Board', name: 'board', type: 'resourceLocator', default: { mode: 'id', value: '' }, modes: [mode] });
const inputs = (value: unknown): Def => ({ displayName: 'Inputs', name: 'inputs', type: 'resourceMapper', default: { mappingMode: 'defineBelow', value }, typeOptions: { resourceMapper: { resourceMapperMethod: 'getInputs', mode: 'add' } } });

/** Defaults the platform reads as "nothing": warnings, each with its own code; and the one that slips past required. */
export const TOLERATED_DEFAULTS: Case[] = [
  { rule: "a required options field's default is not [] (the required check would pass)", valid: [{ displayName: 'Tag', name: 'tag', type: 'options', required: true, default: '', typeOptions: { loadOptionsMethod: 'getTags' } }], invalid: [{ displayName: 'Tag', name: 'tag', type: 'options', required: true, default: [], typeOptions: { loadOptionsMethod: 'getTags' } }], code: 'required-check-defeated', path: '/properties/0/default', message: /the node runs with \[\]/ },
  { rule: "an optional options field's default [] is only a warning", valid: [{ displayName: 'Tag', name: 'tag', type: 'options', default: '', typeOptions: { loadOptionsMethod: 'getTags' } }], invalid: [{ displayName: 'Tag', name: 'tag', type: 'options', default: {}, typeOptions: { loadOptionsMethod: 'getTags' } }], code: 'options-default-container', severity: 'warning', path: '/properties/0/default', message: /works as "nothing chosen"/ },
  { rule: 'a boolean default of 0 is only a warning', valid: [{ displayName: 'Raw Data', name: 'rawData', type: 'boolean', default: false }], invalid: [{ displayName: 'Raw Data', name: 'rawData', type: 'boolean', default: 0 }], code: 'default-zero', severity: 'warning', path: '/properties/0/default', message: /default 0 works as false/ },
  { rule: 'a dateTime default of 0 is only a warning', valid: [{ displayName: 'Due', name: 'due', type: 'dateTime', default: '' }], invalid: [{ displayName: 'Due', name: 'due', type: 'dateTime', default: 0 }], code: 'default-zero', severity: 'warning', path: '/properties/0/default', message: /works as no date/ },
  { rule: 'a number default of false is only a warning', valid: [{ displayName: 'Count', name: 'count', type: 'number', default: 0 }], invalid: [{ displayName: 'Count', name: 'count', type: 'number', default: false }], code: 'number-default-not-number', severity: 'warning', path: '/properties/0/default', message: /works as "no value"/ },
  { rule: 'a number field without a default is only a warning', valid: [{ displayName: 'Timestamp', name: 'ts', type: 'number', default: null }], invalid: [{ displayName: 'Timestamp', name: 'ts', type: 'number', required: true }], code: 'number-default-not-number', severity: 'warning', path: '/properties/0/default', message: /default undefined/ },
  { rule: "a fixedCollection default that is a list is only a warning", valid: [{ displayName: 'Formats', name: 'formats', type: 'fixedCollection', default: { format: [{ type: 'markdown' }] }, typeOptions: { multipleValues: true }, options: [{ name: 'format', displayName: 'Format', values: [{ displayName: 'Type', name: 'type', type: 'string', default: '' }] }] }], invalid: [{ displayName: 'Formats', name: 'formats', type: 'fixedCollection', default: [{ type: 'markdown' }], typeOptions: { multipleValues: true }, options: [{ name: 'format', displayName: 'Format', values: [{ displayName: 'Type', name: 'type', type: 'string', default: '' }] }] }], code: 'default-not-object', severity: 'warning', path: '/properties/0/default', message: /these entries are not shown/ },
  { rule: "a resource mapper default's value is null: an empty object is an error too", valid: [inputs(null)], invalid: [inputs({})], code: 'resource-mapper-default', severity: 'error', path: '/properties/0/default', message: /default value must be null .*got \{\}/ },
  { rule: "a resource mapper default's value is null: a mapping is a saved workflow's value, not a default", valid: [inputs(null)], invalid: [inputs({ id: 1 })], code: 'resource-mapper-default', severity: 'error', path: '/properties/0/default', message: /default value must be null/ },
  { rule: "a notice's default is ''", valid: [{ displayName: 'Pick a sheet first', name: 'notice', type: 'notice', default: '' }], invalid: [{ displayName: 'Pick a sheet first', name: 'notice', type: 'notice', default: 'Saves on close' }], code: 'notice-default-not-empty', severity: 'warning', path: '/properties/0/default', message: /never shown/ },
];

/** Option entries sharing a value: fine when kept apart, an error when shown together under two names. */
export const OPTION_ENTRIES: Case[] = [
  {
    rule: 'differently named options never share a value while shown together',
    valid: [{ displayName: 'Method', name: 'method', type: 'options', default: 'GET', options: [
      { name: 'GET', value: 'GET' },
      { name: 'COPY', value: 'COPY', displayOptions: { show: { '@version': [{ _cnd: { gte: 3 } }] } } },
      { name: 'COPY (legacy)', value: 'COPY', displayOptions: { show: { '@version': [{ _cnd: { lt: 3 } }] } } },
    ] }],
    invalid: [{ displayName: 'Priority', name: 'priority', type: 'options', default: 0, options: [{ name: 'None', value: 0 }, { name: 'Medium', value: 3 }, { name: 'Low', value: 3 }] }],
    code: 'option-value-ambiguous', path: '/properties/0/options/2/value', message: /named differently, share the value 3/,
  },
  {
    rule: 'an option entry is not repeated',
    valid: [{ displayName: 'Verb', name: 'verb', type: 'options', default: 'get', options: [{ name: 'GET', value: 'get' }, { name: 'POST', value: 'post' }] }],
    invalid: [{ displayName: 'Verb', name: 'verb', type: 'options', default: 'get', options: [{ name: 'GET', value: 'get' }, { name: 'GET', value: 'get' }] }],
    code: 'option-value-duplicate', severity: 'warning', path: '/properties/0/options/1/value', message: /options 0 and 1 share the value "get"/,
  },
];

/** Names shared by siblings, judged as the editor shows fields; show values that name no option. */
export const NAMES_AND_DISPLAY: Case[] = [
  {
    rule: 'fields of one name are never certainly shown together',
    valid: [
      resource, operation('ticket', ['get', 'create']),
      { displayName: 'Heads up', name: 'notice', type: 'notice', default: '', displayOptions: { show: { operation: ['get'] } } },
      { displayName: 'More', name: 'notice', type: 'notice', default: '', displayOptions: { show: { operation: ['get'] } } },
      shownFor('options', { '/operation': ['get'], '/resource': ['ticket'] }),
      shownFor('options', { operation: ['create'], resource: ['ticket'] }),
      { displayName: 'Action', name: 'action', type: 'options', default: 'a', options: [{ name: 'A', value: 'a' }], displayOptions: { hide: { '@version': [{ _cnd: { gte: 1.1 } }] } } },
      { displayName: 'Action', name: 'action', type: 'options', default: 'b', options: [{ name: 'B', value: 'b' }], displayOptions: { hide: { '@version': [{ _cnd: { lte: 1 } }] } } },
    ],
    version: [1, 1.1],
    invalid: [resource, shownFor('title', { resource: ['ticket'] }), shownFor('title', { resource: ['ticket'] }, { hide: { '@version': [3] } })],
    code: 'duplicate-name', path: '/properties/2/name', message: /whenever one of them is shown the other is too/,
  },
  {
    rule: 'fields of one name whose conditions may both hold are a warning',
    valid: [shownFor('body', { sendBody: [true], contentType: ['raw'] }), shownFor('body', { sendBody: [false] })],
    invalid: [shownFor('body', { sendBody: [true], specifyBody: ['string'] }), shownFor('body', { sendBody: [true], contentType: ['raw'] })],
    code: 'duplicate-name-possible', severity: 'warning', path: '/properties/1/name', message: /do not keep them apart/,
  },
  {
    rule: 'show.resource and show.operation values name options of those parameters',
    valid: [resource, operation('ticket', ['get', 'create']), operation('user', ['get', 'invite']), shownFor('email', { resource: ['user'], operation: ['invite'] }),
      { displayName: 'Extras', name: 'extras', type: 'collection', default: {}, options: [shownFor('note', { '/operation': ['create'] })] }],
    invalid: [resource, operation('ticket', ['get', 'create']), operation('user', ['get', 'invite']), shownFor('email', { resource: ['ticket'], operation: ['invite'] })],
    code: 'display-value-unknown', severity: 'warning', path: '/properties/3/displayOptions/show/operation/0', message: /"invite" names no option of 'operation' \('get', 'create'\): the field is never shown/,
  },
  {
    rule: 'show.resource values are strings: null is flagged even where a matching option exists',
    valid: [resource, shownFor('email', { resource: ['user'] })],
    invalid: [resource, shownFor('email', { resource: ['user', null] })],
    code: 'display-value-not-string', severity: 'warning', path: '/properties/1/displayOptions/show/resource/1', message: /show\.resource\[1\] is null, but resource values are strings/,
  },
  {
    rule: 'show.operation values are strings: a number is flagged, with no operation parameter to compare with',
    valid: [shownFor('email', { operation: ['send'] })],
    invalid: [shownFor('email', { operation: [1] })],
    code: 'display-value-not-string', severity: 'warning', path: '/properties/0/displayOptions/show/operation/0', message: /is 1, but operation values are strings/,
  },
  {
    rule: 'hide./operation values are strings: a boolean is flagged in a collection\'s options too',
    valid: [{ displayName: 'Extras', name: 'extras', type: 'collection', default: {}, options: [{ displayName: 'Note', name: 'note', type: 'string', default: '', displayOptions: { hide: { '/operation': ['get'] } } }] }],
    invalid: [{ displayName: 'Extras', name: 'extras', type: 'collection', default: {}, options: [{ displayName: 'Note', name: 'note', type: 'string', default: '', displayOptions: { hide: { '/operation': [true] } } }] }],
    code: 'display-value-not-string', severity: 'warning', path: '/properties/0/options/0/displayOptions/hide/~1operation/0', message: /is true, but operation values are strings/,
  },
  {
    rule: 'the operation checks concern the top-level operation only',
    valid: [{ displayName: 'Conditions', name: 'conditions', type: 'fixedCollection', default: {}, typeOptions: { multipleValues: true }, options: [{ name: 'string', displayName: 'String', values: [
      { displayName: 'Value 1', name: 'value1', type: 'string', default: '' },
      { displayName: 'Operation', name: 'operation', type: 'options', default: 'equal', options: [{ name: 'Equal', value: 'equal' }, { name: 'Contains', value: 'contains' }] },
    ] }] }],
    invalid: [{ displayName: 'Operation', name: 'operation', type: 'options', noDataExpression: true, default: 'get', options: [{ name: 'Get', value: 'get' }] }],
    code: 'operation-action-missing', severity: 'warning', path: '/properties/0/options/0', message: /has no action/,
  },
];

/** Rules of the seed checked since the corpus work: a mode's url, a filter's typeValidation, optional passwords. */
export const SEED_RULES: Case[] = [
  { rule: "a mode's url with {{ }} is an expression", valid: [locator({ displayName: 'ID', name: 'id', type: 'string', url: '=https://boards.example.com/b/{{ $value }}' }), { ...locator({ displayName: 'ID', name: 'id', type: 'string', url: '' }), name: 'other' }], invalid: [locator({ displayName: 'ID', name: 'id', type: 'string', url: 'https://boards.example.com/b/{{ $value }}' })], code: 'mode-url-unresolved', path: '/properties/0/modes/0/url', message: /does not start with '='/ },
  { rule: "a mode's url is an expression, even when the editor's {{$value}} replacing makes a plain one work", valid: [locator({ displayName: 'ID', name: 'id', type: 'string', url: '=https://boards.example.com/b/{{$value}}' })], invalid: [locator({ displayName: 'ID', name: 'id', type: 'string', url: 'https://boards.example.com/b/{{$value}}' })], code: 'mode-url-not-expression', severity: 'warning', path: '/properties/0/modes/0/url', message: /works only because the editor puts the value in/ },
  { rule: "a mode's url without {{ }} opens one address only", valid: [locator({ displayName: 'ID', name: 'id', type: 'string', url: '=https://boards.example.com/b/{{ $value }}' })], invalid: [locator({ displayName: 'ID', name: 'id', type: 'string', url: 'https://boards.example.com/' })], code: 'mode-url-not-expression', severity: 'warning', path: '/properties/0/modes/0/url', message: /every value opens this one address/ },
  {
    rule: "a filter's typeValidation resolves to strict or loose",
    valid: [{ displayName: 'Conditions', name: 'conditions', type: 'filter', default: {}, typeOptions: { filter: { caseSensitive: '={{ !$parameter.options.ignoreCase }}', typeValidation: "={{ ($nodeVersion < 2 ? $parameter.options.looseTypeValidation : $parameter.looseTypeValidation) ? 'loose' : 'strict' }}" } } },
      { displayName: 'Rules', name: 'rules', type: 'filter', default: {}, typeOptions: { filter: { typeValidation: "={{ 'loose' }}" } } }],
    invalid: [{ displayName: 'Conditions', name: 'conditions', type: 'filter', default: {}, typeOptions: { filter: { typeValidation: "={{ true ? 'lenient' : 'strict' }}" } } }],
    code: 'filter-type-validation', path: '/properties/0/typeOptions/filter/typeValidation', message: /resolves to 'lenient', neither 'strict' nor 'loose'/,
  },
  { rule: 'a plain typeValidation is strict or loose', valid: [{ displayName: 'Conditions', name: 'conditions', type: 'filter', default: {}, typeOptions: { filter: { typeValidation: 'strict' } } }], invalid: [{ displayName: 'Conditions', name: 'conditions', type: 'filter', default: {}, typeOptions: { filter: { typeValidation: 'lenient' } } }], code: 'filter-type-validation', path: '/properties/0/typeOptions/filter/typeValidation', message: /'lenient' is, neither/ },
  {
    rule: 'optional passwords inside collections are fine',
    valid: [{ displayName: 'Options', name: 'options', type: 'collection', default: {}, options: [{ displayName: 'PDF Password', name: 'password', type: 'string', default: '', typeOptions: { password: true } }] }],
    invalid: [{ displayName: 'PDF Password', name: 'password', type: 'string', default: '', typeOptions: { password: true } }],
    code: 'password-not-required', severity: 'warning', path: '/properties/0/required', message: /should be required: true/,
  },
  { rule: 'a resource locator has modes', valid: [locator({ displayName: 'ID', name: 'id', type: 'string' })], invalid: [{ ...locator({}), modes: [] }], code: 'modes-missing', path: '/properties/0/modes', message: /needs modes/ },
  { rule: 'the default mode is one of the modes', valid: [locator({ displayName: 'ID', name: 'id', type: 'string' })], invalid: [{ ...locator({ displayName: 'ID', name: 'id', type: 'string' }), default: { mode: 'url', value: '' } }], code: 'default-mode-unknown', path: '/properties/0/default/mode', message: /default mode 'url' is not one of the modes 'id'/ },
  { rule: 'a fixedCollection lists its groups', valid: [{ displayName: 'Rows', name: 'rows', type: 'fixedCollection', default: {}, options: [{ name: 'row', displayName: 'Row', values: [] }] }], invalid: [{ displayName: 'Rows', name: 'rows', type: 'fixedCollection', default: {} }], code: 'groups-missing', path: '/properties/0/options', message: /needs options: a list of groups/ },
  { rule: 'editors are ones the platform knows', valid: [{ displayName: 'Query', name: 'query', type: 'string', default: '', typeOptions: { editor: 'sqlEditor' } }], invalid: [{ displayName: 'Query', name: 'query', type: 'string', default: '', typeOptions: { editor: 'sqlEdtor' } }], code: 'unknown-editor', severity: 'warning', path: '/properties/0/typeOptions/editor', message: /did you mean sqlEditor\?/ },
  { rule: 'a _cnd entry has exactly one operator', valid: [shownFor('limit', { '@version': [{ _cnd: { between: { from: 1, to: 3 } } }] })], invalid: [shownFor('limit', { '@version': [{ _cnd: { gte: 1, lt: 3 } }] })], code: 'invalid-condition', path: '/properties/0/displayOptions/show/@version/0', message: /with one operator/ },
];
