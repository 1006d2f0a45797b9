/**
 * The definitions preview's routes: its examples, the lint of a pasted description (validateNodeDescription, run
 * here so that the page's bundle stays small), and the example node's methods the page calls as a real editor
 * would: a list search for resource locators in list mode, and a resource mapping method for resource mappers.
 */
import express from 'express';
import { validateNodeDescription, type ResourceMapperField } from 'workflow-webhooks/definitions';
import type { FindingDto } from './protocol.js';
import { PREVIEW_EXAMPLES } from './preview-examples.js';

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

/** The example's list search: sheets whose name contains the filter, in any letter case. */
function searchSheets(filter: string): { results: typeof SHEETS } {
  const wanted = filter.trim().toLowerCase();
  return { results: SHEETS.filter((sheet) => sheet.name.toLowerCase().includes(wanted)) };
}

/** The example's mapping method: the columns of the chosen sheet; the archive has none, so its noFieldsError shows. */
function getColumns(parameters: Record<string, unknown>): { fields: ResourceMapperField[] } {
  const sheet = parameters.sheet as { value?: unknown } | undefined;
  return { fields: sheet?.value === '3Empty-archive00' ? [] : COLUMNS };
}

function bodyOf(req: express.Request): Record<string, unknown> {
  return typeof req.body === 'object' && req.body !== null ? req.body as Record<string, unknown> : {};
}

export function previewRoutes(): express.Router {
  const router = express.Router();
  const json = express.json({ limit: '1mb' });

  router.get('/examples', (_req, res) => { res.json(PREVIEW_EXAMPLES); });

  router.post('/lint', json, (req, res) => {
    const { valid, errors, warnings } = validateNodeDescription(req.body);
    const findings: FindingDto[] = [...errors, ...warnings].map(({ path, code, severity, message }) => ({ path, code, severity, message }));
    res.json({ valid, findings });
  });

  router.post('/methods/listSearch/:method', json, (req, res) => {
    if (req.params.method !== 'searchSheets') {
      res.status(404).json({ message: `The preview's example node has no list search method "${req.params.method}"; it has searchSheets.` });
      return;
    }
    const { filter } = bodyOf(req);
    res.json(searchSheets(typeof filter === 'string' ? filter : ''));
  });

  router.post('/methods/resourceMapping/:method', json, (req, res) => {
    if (req.params.method !== 'getColumns') {
      res.status(404).json({ message: `The preview's example node has no resource mapping method "${req.params.method}"; it has getColumns.` });
      return;
    }
    const { parameters } = bodyOf(req);
    res.json(getColumns(typeof parameters === 'object' && parameters !== null ? parameters as Record<string, unknown> : {}));
  });

  return router;
}
