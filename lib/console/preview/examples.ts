/**
 * The node descriptions the definitions preview offers: a node with one definition of each of the 15 element types
 * (behind resource and operation switches), the failing definition of docs/definitions.md (its lint findings), and
 * the Webhook node's own description.
 */
import { FILTER_OPTION_EXPRESSIONS, WEBHOOK_NODE_DESCRIPTION, type NodeDescription } from '../../definitions/index.js';
import type { ExampleDto } from '../protocol.js';
import { WEBHOOK_NODE_HINTS } from './node-hints.js';

const ROW = { resource: ['row'] };
const APPEND = { resource: ['row'], operation: ['append'] };

/** Spreadsheet rows: every element type, as a node author would write them. */
export const EVERY_TYPE: NodeDescription = {
  displayName: 'Spreadsheet',
  name: 'spreadsheet',
  version: 1,
  methods: { listSearch: ['searchSheets'], resourceMapping: ['getColumns'] },
  properties: [
    {
      displayName: 'Resource', name: 'resource', type: 'options', noDataExpression: true, default: 'row',
      options: [{ name: 'Row', value: 'row' }, { name: 'Sheet', value: 'sheet' }],
    },
    {
      displayName: 'Operation', name: 'operation', type: 'options', noDataExpression: true, default: 'append', displayOptions: { show: ROW },
      options: [
        { name: 'Append', value: 'append', action: 'Append a row', description: 'Add a row after the last filled one' },
        { name: 'Update', value: 'update', action: 'Update a row', description: 'Change the row whose matching column holds the value' },
      ],
    },
    {
      displayName: 'Operation', name: 'operation', type: 'options', noDataExpression: true, default: 'create', displayOptions: { show: { resource: ['sheet'] } },
      options: [{ name: 'Create', value: 'create', action: 'Create a sheet' }],
    },
    { displayName: 'Rows are added after the last row that has a value in any column.', name: 'appendNotice', type: 'notice', default: '', displayOptions: { show: APPEND } },
    {
      displayName: 'Access Token', name: 'accessToken', type: 'string', default: '', required: true, typeOptions: { password: true },
      description: 'Token of the spreadsheet service', hint: 'Kept out of the workflow export',
    },
    {
      displayName: 'Sheet', name: 'sheet', type: 'resourceLocator', required: true, default: { mode: 'list', value: '' }, displayOptions: { show: ROW },
      description: 'The sheet to write to',
      modes: [
        { displayName: 'From List', name: 'list', type: 'list', placeholder: 'Choose a sheet…', typeOptions: { searchListMethod: 'searchSheets', searchable: true } },
        {
          displayName: 'By URL', name: 'url', type: 'string', placeholder: 'https://docs.example.com/d/1AbC-dEf_123/edit', hint: 'Paste the address from the browser',
          validation: [{ type: 'regex', properties: { regex: 'https://docs\\.example\\.com/d/[\\w-]+.*', errorMessage: 'Not a valid sheet URL' } }],
          extractValue: { type: 'regex', regex: 'https://docs\\.example\\.com/d/([\\w-]+)' },
        },
        {
          displayName: 'ID', name: 'id', type: 'string', placeholder: '1AbC-dEf_123', url: '=https://docs.example.com/d/{{ $value }}',
          validation: [{ type: 'regex', properties: { regex: '[\\w-]{10,}', errorMessage: 'Not a valid sheet ID' } }],
        },
      ],
    },
    {
      displayName: 'Columns', name: 'columns', type: 'resourceMapper', required: true, default: { mappingMode: 'defineBelow', value: null },
      displayOptions: { show: ROW },
      typeOptions: {
        resourceMapper: {
          resourceMapperMethod: 'getColumns', mode: 'upsert', fieldWords: { singular: 'column', plural: 'columns' },
          addAllFields: true, multiKeyMatch: false, noFieldsError: 'This sheet has no columns: give it a header row first.',
          matchingFieldsLabels: { title: 'Column to Match On', hint: 'Rows whose value in this column equals the one below are updated' },
        },
      },
    },
    { displayName: 'Header Row', name: 'headerRow', type: 'number', default: 1, typeOptions: { minValue: 1, maxValue: 100, numberPrecision: 0 }, description: 'The row that holds the column names' },
    { displayName: 'Typed Values', name: 'typedValues', type: 'boolean', default: true, description: 'Whether to store numbers and dates as such, not as text' },
    { displayName: 'Written At', name: 'writtenAt', type: 'dateTime', default: '', description: 'The time stamp the row carries; empty for now', displayOptions: { show: APPEND } },
    { displayName: 'Highlight Colour', name: 'highlight', type: 'color', default: '#ffd966', displayOptions: { show: APPEND } },
    {
      displayName: 'Notify On', name: 'notifyOn', type: 'multiOptions', default: [], displayOptions: { show: ROW },
      description: 'Events of the sheet to send a message for',
      options: [
        { name: 'Row Added', value: 'rowAdded' }, { name: 'Row Changed', value: 'rowChanged' }, { name: 'Sheet Shared', value: 'sheetShared' },
      ],
    },
    {
      displayName: 'Message', name: 'message', type: 'string', default: '<p>A row was added to {{ $json.sheet }}.</p>', noDataExpression: true,
      typeOptions: { editor: 'htmlEditor' }, displayOptions: { show: ROW }, hint: 'HTML; {{ }} expressions are filled in per row',
    },
    { displayName: 'Note', name: 'note', type: 'string', default: '', typeOptions: { rows: 3 }, placeholder: 'Why this row exists', displayOptions: { show: APPEND } },
    { displayName: 'Extra Cells (JSON)', name: 'extraCells', type: 'json', default: '{}', description: 'Cells to add as they are, by column name', displayOptions: { show: APPEND } },
    {
      displayName: 'Only Rows That Match', name: 'conditions', type: 'filter', default: {}, displayOptions: { show: ROW },
      typeOptions: { filter: { ...FILTER_OPTION_EXPRESSIONS } },
    },
    { displayName: 'Set Fields', name: 'assignments', type: 'assignmentCollection', default: {}, displayOptions: { show: APPEND } },
    {
      displayName: 'Cell Formats', name: 'formats', type: 'fixedCollection', placeholder: 'Add Cell Format', default: {}, displayOptions: { show: ROW },
      typeOptions: { multipleValues: true },
      options: [{
        name: 'format', displayName: 'Format',
        values: [
          { displayName: 'Column', name: 'column', type: 'string', default: '' },
          { displayName: 'Bold', name: 'bold', type: 'boolean', default: false },
        ],
      }],
    },
    {
      displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {},
      options: [
        { displayName: 'Ignore Case', name: 'ignoreCase', type: 'boolean', default: true, description: 'Whether to ignore letter case when evaluating conditions' },
        { displayName: 'Less Strict Type Validation', name: 'looseTypeValidation', type: 'boolean', default: true, description: 'Whether to try casting value types based on the selected operator' },
        { displayName: 'Locale', name: 'locale', type: 'string', default: 'en-GB', placeholder: 'en-GB' },
      ],
    },
    { displayName: 'Sheet Title', name: 'title', type: 'string', default: '', required: true, displayOptions: { show: { resource: ['sheet'] } } },
  ],
};

/** The failing definition of docs/definitions.md: three errors and four warnings, each with its JSON pointer. */
export const TICKET: NodeDescription = {
  displayName: 'Ticket',
  properties: [
    { displayName: 'Resource', name: 'resource', type: 'options', default: 'ticket', options: [{ name: 'Ticket', value: 'ticket' }] },
    { displayName: 'Priority', name: 'priority', type: 'options', default: 'urgent', options: [{ name: 'Low', value: 'low' }, { name: 'High', value: 'high' }] },
    { displayName: 'Attempts', name: 'attempts', type: 'number', default: 3, typeOptions: { minVale: 1, maxValue: 0 } },
    { displayName: 'API Key', name: 'apiKey', type: 'string', default: 'abc', typeOptions: { password: true } },
    { displayName: 'Board', name: 'board', type: 'resourceLocator', default: { mode: 'list', value: '' }, modes: [{ displayName: 'From List', name: 'list', type: 'list' }] },
  ],
};

export const PREVIEW_EXAMPLES: readonly ExampleDto[] = [
  { id: 'every-type', title: 'Spreadsheet: every element type', description: EVERY_TYPE },
  { id: 'ticket', title: 'Ticket: a definition with lint findings', description: TICKET },
  { id: 'webhook', title: 'Webhook: the trigger node of this library', description: { ...WEBHOOK_NODE_DESCRIPTION, hints: WEBHOOK_NODE_HINTS } },
];
