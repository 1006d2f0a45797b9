/**
 * A node description written for the tests, shaped like the known platform's own nodes (resource and operation
 * parameters, per-operation fields, a collection, a repeatable fixedCollection, a resource locator, a resource
 * mapper, a filter, a notice, a node hint). It is valid without any finding, even in strict mode; the seeded
 * mutations break it one rule at a time.
 */
const show = (resource: string, operation: string[]) => ({ show: { resource: [resource], operation } });
const entry = (name: string, value: string, action?: string) => ({ name, value, ...(action === undefined ? {} : { action }) });

export function helpdeskNode(): Record<string, unknown> {
  return {
    displayName: 'Helpdesk',
    name: 'helpdesk',
    version: [1, 2],
    defaultVersion: 2,
    hints: [{ message: 'Exports of every ticket can take minutes', type: 'info', location: 'outputPane', whenToDisplay: 'beforeExecution', displayCondition: '={{ $parameter.returnAll === true }}' }],
    methods: { loadOptions: ['getTags'], listSearch: ['searchBoards'], resourceMapping: ['getColumns'] },
    properties: [
      { displayName: 'Resource', name: 'resource', type: 'options', noDataExpression: true, default: 'ticket',
        options: [entry('Ticket', 'ticket'), entry('User', 'user'), entry('Board', 'board')] },
      { displayName: 'Operation', name: 'operation', type: 'options', noDataExpression: true, default: 'create', displayOptions: { show: { resource: ['ticket'] } },
        options: [entry('Create', 'create', 'Create a ticket'), entry('Get', 'get', 'Get a ticket'), entry('Get Many', 'getAll', 'Get many tickets'), entry('Update', 'update', 'Update a ticket')] },
      { displayName: 'Operation', name: 'operation', type: 'options', noDataExpression: true, default: 'invite', displayOptions: { show: { resource: ['user'] } },
        options: [entry('Get', 'get', 'Get a user'), entry('Invite', 'invite', 'Invite a user')] },
      { displayName: 'Operation', name: 'operation', type: 'options', noDataExpression: true, default: 'addRow', displayOptions: { show: { resource: ['board'] } },
        options: [entry('Add Row', 'addRow', 'Add a row to a board'), entry('Get', 'get', 'Get a board')] },
      { displayName: 'Rows are matched on the columns picked below', name: 'matchNotice', type: 'notice', default: '', displayOptions: show('board', ['addRow']) },
      { displayName: 'Title', name: 'title', type: 'string', required: true, default: '', requiresDataPath: 'single', displayOptions: show('ticket', ['create']) },
      { displayName: 'Details', name: 'details', type: 'string', default: '', typeOptions: { rows: 4 }, displayOptions: show('ticket', ['create', 'update']) },
      { displayName: 'Reply Body', name: 'replyBody', type: 'string', noDataExpression: true, default: '<p>Thanks for writing in.</p>', typeOptions: { editor: 'htmlEditor' }, displayOptions: show('ticket', ['create']) },
      { displayName: 'Priority', name: 'priority', type: 'options', default: 'normal', displayOptions: show('ticket', ['create']),
        options: [entry('Low', 'low'), entry('Normal', 'normal'), entry('Urgent', 'urgent')] },
      { displayName: 'Tag Names or IDs', name: 'tags', type: 'multiOptions', default: [], typeOptions: { loadOptionsMethod: 'getTags' }, displayOptions: show('ticket', ['create']) },
      { displayName: 'Ticket ID', name: 'ticketId', type: 'string', required: true, default: '', displayOptions: show('ticket', ['get', 'update']) },
      { displayName: 'Return All', name: 'returnAll', type: 'boolean', default: false, displayOptions: show('ticket', ['getAll']) },
      { displayName: 'Limit', name: 'limit', type: 'number', default: 50, typeOptions: { minValue: 1, maxValue: 500, numberPrecision: 0 },
        displayOptions: { show: { resource: ['ticket'], operation: ['getAll'], returnAll: [false] } } },
      { displayName: 'Update Fields', name: 'updateFields', type: 'collection', placeholder: 'Add Field', default: {}, displayOptions: show('ticket', ['update']), options: [
        { displayName: 'Status', name: 'status', type: 'options', default: 'open', options: [entry('Open', 'open'), entry('Solved', 'solved')] },
        { displayName: 'Due Date', name: 'dueDate', type: 'dateTime', default: '' },
        { displayName: 'Label Colour', name: 'colour', type: 'color', default: '#ff9900' },
        { displayName: 'Escalate', name: 'escalate', type: 'boolean', default: false },
      ] },
      { displayName: 'Custom Fields', name: 'customFields', type: 'fixedCollection', placeholder: 'Add Custom Field', default: {}, typeOptions: { multipleValues: true },
        displayOptions: show('ticket', ['create']), options: [
          { name: 'field', displayName: 'Field', values: [
            { displayName: 'Field Name', name: 'name', type: 'string', default: '' },
            { displayName: 'Field Value', name: 'value', type: 'string', default: '' },
          ] },
        ] },
      { displayName: 'Email', name: 'email', type: 'string', required: true, placeholder: 'name@email.com', default: '', displayOptions: show('user', ['invite']) },
      { displayName: 'Invite Token', name: 'inviteToken', type: 'string', required: true, default: '', typeOptions: { password: true }, displayOptions: show('user', ['invite']) },
      { displayName: 'Board', name: 'board', type: 'resourceLocator', required: true, default: { mode: 'list', value: '' }, displayOptions: { show: { resource: ['board'] } }, modes: [
        { displayName: 'From List', name: 'list', type: 'list', typeOptions: { searchListMethod: 'searchBoards', searchable: true } },
        { displayName: 'By URL', name: 'url', type: 'string', placeholder: 'https://boards.example.com/b/abc123',
          validation: [{ type: 'regex', properties: { regex: 'https://boards\\.example\\.com/b/[a-z0-9]+.*', errorMessage: 'Not a board URL' } }],
          extractValue: { type: 'regex', regex: 'https://boards\\.example\\.com/b/([a-z0-9]+)' } },
        { displayName: 'ID', name: 'id', type: 'string', url: '=https://boards.example.com/b/{{ $value }}',
          validation: [{ type: 'regex', properties: { regex: '[a-z0-9]{6,}', errorMessage: 'Not a board ID' } }] },
      ] },
      { displayName: 'Columns', name: 'columns', type: 'resourceMapper', required: true, default: { mappingMode: 'defineBelow', value: null }, displayOptions: show('board', ['addRow']),
        typeOptions: { loadOptionsDependsOn: ['board.value'], resourceMapper: { resourceMapperMethod: 'getColumns', mode: 'upsert', fieldWords: { singular: 'column', plural: 'columns' }, multiKeyMatch: true, supportAutoMap: true, addAllFields: true, matchingFieldsLabels: { title: 'Match On' } } } },
      { displayName: 'Conditions', name: 'conditions', type: 'filter', default: {}, displayOptions: show('ticket', ['getAll']),
        typeOptions: { filter: { caseSensitive: '={{ !$parameter.options.ignoreCase }}', typeValidation: "={{ $parameter.options.looseTypeValidation ? 'loose' : 'strict' }}" } } },
      { displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add option', default: {}, displayOptions: show('ticket', ['getAll']), options: [
        { displayName: 'Ignore Case', name: 'ignoreCase', type: 'boolean', default: true },
        { displayName: 'Less Strict Type Validation', name: 'looseTypeValidation', type: 'boolean', default: true },
      ] },
      { displayName: 'Raw Query', name: 'rawQuery', type: 'json', default: '{}', displayOptions: { show: { '/resource': ['ticket'], '/operation': ['getAll'], '@version': [{ _cnd: { gte: 2 } }] } } },
    ],
  };
}
