/**
 * Validation speed of node property definitions: 10 000 generated definitions of every kind (nested ones
 * included), validated as 400 node descriptions of 25 properties; the median of several rounds, in process.
 */
import { performance } from 'node:perf_hooks';
import { validateNodeDescription } from '../lib/definitions/index.js';

function definition(i: number): Record<string, unknown> {
  const shown = { displayOptions: { show: { resource: [`r${i % 7}`], operation: [`op${i % 5}`] } } };
  switch (i % 8) {
    case 0: return { displayName: `Name ${i}`, name: `name${i}`, type: 'string', default: '', placeholder: 'e.g. Ada', ...shown };
    case 1: return { displayName: `Limit ${i}`, name: `limit${i}`, type: 'number', default: 50, typeOptions: { minValue: 1, maxValue: 500 }, ...shown };
    case 2: return { displayName: `Status ${i}`, name: `status${i}`, type: 'options', default: 'open', options: [{ name: 'Open', value: 'open' }, { name: 'Closed', value: 'closed' }, { name: 'All', value: 'all' }], ...shown };
    case 3: return { displayName: `Flag ${i}`, name: `flag${i}`, type: 'boolean', default: false, ...shown };
    case 4: return {
      displayName: `Options ${i}`, name: `options${i}`, type: 'collection', default: {}, placeholder: 'Add Option', ...shown,
      options: [{ displayName: 'Sort', name: 'sort', type: 'options', default: 'asc', options: [{ name: 'Asc', value: 'asc' }, { name: 'Desc', value: 'desc' }] }, { displayName: 'Query', name: 'q', type: 'string', default: '' }],
    };
    case 5: return {
      displayName: `Sheet ${i}`, name: `sheet${i}`, type: 'resourceLocator', default: { mode: 'list', value: '' }, ...shown,
      modes: [
        { displayName: 'From list', name: 'list', type: 'list', typeOptions: { searchListMethod: 'searchSheets', searchable: true } },
        { displayName: 'By URL', name: 'url', type: 'string', extractValue: { type: 'regex', regex: 'https://docs\\.example\\.com/d/([0-9a-zA-Z_-]+)' }, validation: [{ type: 'regex', properties: { regex: 'https://docs\\.example\\.com/d/.+', errorMessage: 'Not a sheet URL' } }] },
        { displayName: 'ID', name: 'id', type: 'string' },
      ],
    };
    case 6: return {
      displayName: `Headers ${i}`, name: `headers${i}`, type: 'fixedCollection', default: {}, typeOptions: { multipleValues: true }, ...shown,
      options: [{ name: 'entry', displayName: 'Entry', values: [{ displayName: 'Name', name: 'name', type: 'string', default: '' }, { displayName: 'Value', name: 'value', type: 'string', default: '' }] }],
    };
    default: return { displayName: `Tags ${i}`, name: `tags${i}`, type: 'multiOptions', default: [], typeOptions: { loadOptionsMethod: 'getTags' }, ...shown };
  }
}

export async function benchDefinitions(count = 10_000, rounds = 7): Promise<string> {
  const perNode = 25;
  const descriptions = Array.from({ length: count / perNode }, (_, node) => ({
    properties: Array.from({ length: perNode }, (_, i) => definition(node * perNode + i)),
    methods: { listSearch: ['searchSheets'], loadOptions: ['getTags'] },
  }));
  validateNodeDescription(descriptions[0]);
  const rates: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    for (const description of descriptions) {
      const result = validateNodeDescription(description);
      if (!result.valid) throw new Error(JSON.stringify(result.errors[0]));
    }
    rates.push(count / ((performance.now() - started) / 1000));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const median = [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)] ?? 0;
  return [
    '| definitions | nodes | definitions/s (median) | time for 30 000 |',
    '|---|---|---|---|',
    `| ${count.toLocaleString('en')} (plus nested) | ${descriptions.length} | ${Math.round(median).toLocaleString('en')} | ${(30_000 / median * 1000).toFixed(0)} ms |`,
  ].join('\n');
}
