/**
 * The node parameter preview's server side: its example descriptions, the Webhook node's description with its
 * hints, the lint of a pasted description (validateNodeDescription, run here so that the page's bundle stays
 * small), and the example node's methods the page calls as a real editor would: a list search for resource
 * locators in list mode, and a resource mapping method for resource mappers.
 */
import { validateNodeDescription, WEBHOOK_NODE_DESCRIPTION, type ResourceMapperField } from '../../definitions/index.js';
import type { ExampleDto, FindingDto, LintAnswer } from '../protocol.js';
import { notFound } from '../server/answer.js';
import { objectOf } from '../server/json-body.js';
import { PREVIEW_EXAMPLES } from './examples.js';
import { WEBHOOK_NODE_HINTS } from './node-hints.js';

const SHEETS = [
  { name: 'Orders 2026', value: '1AbC-dEf_123', url: 'https://docs.example.com/d/1AbC-dEf_123' },
  { name: 'Customers', value: '2XyZ-customers01', url: 'https://docs.example.com/d/2XyZ-customers01' },
  { name: 'Archive (empty)', value: '3Empty-archive00', url: 'https://docs.example.com/d/3Empty-archive00' },
];

const COLUMNS: ResourceMapperField[] = [
  { id: 'id', displayName: 'ID', type: 'number', required: false, defaultMatch: true, canBeUsedToMatch: true, display: true },
  { id: 'name', displayName: 'Name', type: 'string', required: true, defaultMatch: false, display: true },
  { id: 'email', displayName: 'Email', type: 'string', required: false, defaultMatch: false, canBeUsedToMatch: true, display: true },
  {
    id: 'status', displayName: 'Status', type: 'options', required: false, defaultMatch: false, display: true,
    options: [{ name: 'New', value: 'new' }, { name: 'Active', value: 'active' }, { name: 'Closed', value: 'closed' }],
  },
  { id: 'signedUp', displayName: 'Signed Up', type: 'dateTime', required: false, defaultMatch: false, display: true },
  { id: 'vip', displayName: 'VIP', type: 'boolean', required: false, defaultMatch: false, display: true },
  { id: 'rowHash', displayName: 'Row Hash', type: 'string', required: false, defaultMatch: false, display: false },
];

export function previewExamples(): readonly ExampleDto[] {
  return PREVIEW_EXAMPLES;
}

export function webhookNodeDescription(): unknown {
  return { ...WEBHOOK_NODE_DESCRIPTION, hints: WEBHOOK_NODE_HINTS };
}

export function lintDescription(description: unknown): LintAnswer {
  const { valid, errors, warnings } = validateNodeDescription(description);
  const findings: FindingDto[] = [...errors, ...warnings].map(({ path, code, severity, message }) => ({ path, code, severity, message }));
  return { valid, findings };
}

/** The example node's list search: sheets whose name contains the filter, in any letter case. */
export function listSearch(method: string, body: unknown): { results: typeof SHEETS } {
  if (method !== 'searchSheets') throw notFound(`The preview's example node has no list search method "${method}"; it has searchSheets.`);
  const { filter } = objectOf(body);
  const wanted = (typeof filter === 'string' ? filter : '').trim().toLowerCase();
  return { results: SHEETS.filter((sheet) => sheet.name.toLowerCase().includes(wanted)) };
}

/** The example node's mapping method: the columns of the chosen sheet; the archive has none, so its noFieldsError shows. */
export function resourceMapping(method: string, body: unknown): { fields: ResourceMapperField[] } {
  if (method !== 'getColumns') throw notFound(`The preview's example node has no resource mapping method "${method}"; it has getColumns.`);
  const sheet = objectOf(objectOf(body).parameters).sheet as { value?: unknown } | undefined;
  return { fields: sheet?.value === '3Empty-archive00' ? [] : COLUMNS };
}
