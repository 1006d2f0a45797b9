import { expect } from 'chai';
import { readDoc } from '../../support/readme/blocks.js';
import {
  extractLocatorValue,
  resolveLocatorUrl,
  validateParameters,
  validateParameterValue,
  type ParameterIssue,
} from '../../../lib/definitions/index.js';

const messages = (issues: ParameterIssue[]): string[] => issues.map((issue) => issue.message);

const sheet = {
  displayName: 'Sheet', name: 'sheet', type: 'resourceLocator', required: true, default: { mode: 'list', value: '' },
  modes: [
    { displayName: 'From list', name: 'list', type: 'list', typeOptions: { searchListMethod: 'searchSheets' } },
    {
      displayName: 'By URL', name: 'url', type: 'string', url: '={{ $value }}',
      validation: [{ type: 'regex', properties: { regex: 'https://docs\\.example\\.com/d/[\\w-]+.*', errorMessage: 'Not a valid sheet URL' } }],
      extractValue: { type: 'regex', regex: 'https://docs\\.example\\.com/d/([\\w-]+)' },
    },
    {
      displayName: 'ID', name: 'id', type: 'string', url: '=https://docs.example.com/d/{{ $value }}',
      validation: [{ type: 'regex', properties: { regex: '[\\w-]{10,}', errorMessage: 'Not a valid sheet ID' } }],
    },
  ],
};

describe('validateParameterValue()', () => {
  describe('required fields', () => {
    for (const [type, empty] of [['string', ''], ['options', undefined], ['multiOptions', []], ['dateTime', ''], ['number', null]] as const) {
      it(`says a required ${type} left empty is required`, () => {
        expect(validateParameterValue({ displayName: 'Title', name: 'title', type, required: true, options: [] }, empty)).to.deep.equal([
          { path: '/title', parameter: 'Title', code: 'required', message: 'Parameter "Title" is required.' },
        ]);
      });
    }

    it('accepts an empty optional field and a required boolean set to false', () => {
      expect(validateParameterValue({ displayName: 'T', name: 't', type: 'string' }, '')).to.deep.equal([]);
      expect(validateParameterValue({ displayName: 'B', name: 'b', type: 'boolean', required: true }, false)).to.deep.equal([]);
    });
  });

  describe('numbers', () => {
    const limit = { displayName: 'Limit', name: 'limit', type: 'number', typeOptions: { minValue: 1, maxValue: 100, numberPrecision: 2 } };
    it('reports values outside minValue and maxValue', () => {
      expect(messages(validateParameterValue(limit, 0))).to.deep.equal(['Value must be at least 1']);
      expect(messages(validateParameterValue(limit, 101))).to.deep.equal(['Value must be at most 100']);
    });
    it('reports more decimals than numberPrecision', () => {
      expect(messages(validateParameterValue(limit, 1.234))).to.deep.equal(['Value may have at most 2 decimal places']);
      expect(validateParameterValue(limit, 1.23)).to.deep.equal([]);
      expect(messages(validateParameterValue({ ...limit, typeOptions: { numberPrecision: 0 } }, 2.5))).to.deep.equal(['Value may have at most 0 decimal places']);
    });
    it('reports a value that is not a number', () => {
      expect(validateParameterValue(limit, '5')[0]?.code).to.equal('wrong-type');
    });
  });

  describe('options', () => {
    const speed = { displayName: 'Speed', name: 'speed', type: 'options', options: [{ name: 'Slow', value: 'slow' }, { name: 'Fast', value: 'fast' }] };
    it('reports a value that is not among the options', () => {
      expect(messages(validateParameterValue(speed, 'warp'))).to.deep.equal(["'Speed' expects one of the following values: [slow, fast] but we got 'warp'"]);
    });
    it('reports each multiOptions value not among them, with its index', () => {
      const issues = validateParameterValue({ ...speed, type: 'multiOptions' }, ['slow', 'warp']);
      expect(issues.map((issue) => issue.path)).to.deep.equal(['/speed/1']);
    });
    it('does not judge options loaded at run time, nor expressions', () => {
      expect(validateParameterValue({ ...speed, typeOptions: { loadOptionsMethod: 'getSpeeds' } }, 'warp')).to.deep.equal([]);
      expect(validateParameterValue(speed, '={{ $json.speed }}')).to.deep.equal([]);
    });
  });

  describe('value shapes per type', () => {
    for (const [type, value, message] of [
      ['string', 5, "'Field' expects a string but we got 5"],
      ['boolean', 'yes', "'Field' expects a boolean but we got \"yes\""],
      ['collection', [], "'Field' expects a collection but we got []"],
      ['json', '{bad', "'Field' expects valid JSON but we got \"{bad\""],
      ['dateTime', 'next tuesday', "'Field' expects a date and time (ISO 8601) but we got \"next tuesday\""],
    ] as const) {
      it(`reports a ${type} of the wrong shape`, () => {
        expect(messages(validateParameterValue({ displayName: 'Field', name: 'f', type }, value))).to.deep.equal([message]);
      });
    }

    it('checks validateType on top of the element type', () => {
      expect(messages(validateParameterValue({ displayName: 'Site', name: 'site', type: 'string', validateType: 'url' }, 'not a url'))).to.deep.equal(["'Site' expects a url but we got 'not a url'"]);
    });
  });

  describe('resource locator values', () => {
    it('gives the mode validation\'s errorMessage for a value that fails its regex', () => {
      expect(validateParameterValue(sheet, { __rl: true, mode: 'url', value: 'https://evil.example.org/d/1' })).to.deep.equal([
        { path: '/sheet', parameter: 'Sheet', code: 'validation-failed', message: 'Not a valid sheet URL' },
      ]);
    });
    it('anchors the regex to the whole value', () => {
      expect(messages(validateParameterValue(sheet, { __rl: true, mode: 'id', value: 'abc def ghi jkl' }))).to.deep.equal(['Not a valid sheet ID']);
      expect(validateParameterValue(sheet, { __rl: true, mode: 'id', value: '1AbC-dEf_123' })).to.deep.equal([]);
    });
    it('reports an unknown mode', () => {
      expect(messages(validateParameterValue(sheet, { __rl: true, mode: 'name', value: 'x' }))).to.deep.equal(["mode 'name' is not one of the modes 'list', 'url', 'id'"]);
    });
    it('treats an empty value as empty, and skips expressions', () => {
      expect(validateParameterValue(sheet, { __rl: true, mode: 'list', value: '' })[0]?.code).to.equal('required');
      expect(validateParameterValue(sheet, { __rl: true, mode: 'url', value: '={{ $json.url }}' })).to.deep.equal([]);
    });
    it('extracts the ID from an entered URL with extractValue', () => {
      expect(extractLocatorValue(sheet, { __rl: true, mode: 'url', value: 'https://docs.example.com/d/1AbC-dEf_123/edit#gid=0' })).to.equal('1AbC-dEf_123');
      expect(extractLocatorValue(sheet, { __rl: true, mode: 'id', value: 'plain-id' })).to.equal('plain-id');
      expect(() => extractLocatorValue(sheet, { __rl: true, mode: 'url', value: 'https://other.example.com/x' })).to.throw(/Sheet parameter's value is invalid/);
    });
    it('resolves the mode\'s url expression with the entered value', () => {
      expect(resolveLocatorUrl(sheet, { __rl: true, mode: 'id', value: '1AbC-dEf_123' })).to.equal('https://docs.example.com/d/1AbC-dEf_123');
      expect(resolveLocatorUrl(sheet, { __rl: true, mode: 'list', value: 'x' })).to.equal(undefined);
    });
  });
});

describe('validateParameters()', () => {
  const definitions = [
    { displayName: 'Resource', name: 'resource', type: 'options', default: 'file', options: [{ name: 'File', value: 'file' }, { name: 'Folder', value: 'folder' }] },
    { displayName: 'File Name', name: 'fileName', type: 'string', default: '', required: true, displayOptions: { show: { resource: ['file'] } } },
    { displayName: 'Depth', name: 'depth', type: 'number', default: 1, typeOptions: { maxValue: 5 }, displayOptions: { show: { resource: ['folder'] } } },
    { displayName: 'Legacy', name: 'legacy', type: 'string', default: '', required: true, displayOptions: { show: { '@version': [1] } } },
    {
      displayName: 'Options', name: 'options', type: 'collection', default: {},
      options: [{ displayName: 'Limit', name: 'limit', type: 'number', default: 10, typeOptions: { minValue: 1 } }],
    },
    {
      displayName: 'Headers', name: 'headers', type: 'fixedCollection', default: {}, typeOptions: { multipleValues: true },
      options: [{ name: 'entry', displayName: 'Entry', values: [{ displayName: 'Name', name: 'name', type: 'string', default: '', required: true }] }],
    },
  ];

  it('requires and validates only the parameters shown for the chosen resource', () => {
    expect(validateParameters(definitions, { resource: 'file', depth: 99 }, { version: 2 }).map((i) => [i.path, i.code])).to.deep.equal([['/fileName', 'required']]);
    expect(validateParameters(definitions, { resource: 'folder', depth: 99 }, { version: 2 }).map((i) => [i.path, i.code])).to.deep.equal([['/depth', 'above-maximum']]);
  });

  it('applies @version conditions', () => {
    expect(validateParameters(definitions, { resource: 'folder' }, { version: 1 }).map((i) => i.path)).to.deep.equal(['/legacy']);
  });

  it('validates values inside collections and fixedCollection groups with their paths', () => {
    const issues = validateParameters(definitions, { resource: 'folder', options: { limit: 0 }, headers: { entry: [{ name: 'a' }, { name: '' }] } }, { version: 2 });
    expect(issues.map((i) => [i.path, i.message])).to.deep.equal([
      ['/options/limit', 'Value must be at least 1'],
      ['/headers/entry/1/name', 'Parameter "Name" is required.'],
    ]);
  });

  it('escapes ~ and / in the names on an issue\'s path, as a JSON pointer must: a/b~c is a~1b~0c', () => {
    const named = (name: string) => ({ displayName: name, name, type: 'number', default: 1, typeOptions: { maxValue: 5 } });
    const extras = [{ displayName: 'Extras', name: 'x~y', type: 'collection', default: {}, options: [named('a/b~c'), named('~1')] }];
    expect(validateParameters(extras, { 'x~y': { 'a/b~c': 9, '~1': 9 } }).map((i) => i.path)).to.deep.equal(['/x~0y/a~1b~0c', '/x~0y/~01']);
  });

  it('shows a parameter whose condition reads an expression (only known at run time)', () => {
    expect(validateParameters(definitions, { resource: '={{ $json.kind }}' }, { version: 2 }).map((i) => i.path)).to.deep.equal(['/fileName']);
  });
});

/** The definitions guide's resource locator (docs/definitions.md: its json block) and its table of entered values with the issues each gives. */
function readmeLocatorExample(): { definition: Parameters<typeof validateParameterValue>[0]; rows: { value: unknown; issues: string }[] } {
  const readme = readDoc('docs/definitions.md');
  const section = readme.slice(readme.indexOf('A resource locator and three entered values:'));
  const definition = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)?.[1] ?? 'null') as Parameters<typeof validateParameterValue>[0];
  const rows = [...section.matchAll(/^\| `(\{ "__rl".*?\})` \| (.*) \|$/gm)].map((match) => ({ value: JSON.parse(match[1] as string) as unknown, issues: match[2] as string }));
  return { definition, rows };
}

describe('the definitions guide\'s resource locator example', () => {
  it('gives the issues the guide shows for its three values', () => {
    const { definition, rows } = readmeLocatorExample();
    expect(rows, 'the guide\'s rows').to.have.length(3);
    const shown = rows.map(({ value }) => {
      const found = validateParameterValue(definition, value);
      return found.length === 0 ? `none; \`extractLocatorValue()\` gives \`${String(extractLocatorValue(definition as never, value as never))}\`` : found.map((issue) => `\`${issue.code}\`: \`${issue.message}\``).join(', ');
    });
    // A row may explain itself after the issue, in parentheses.
    expect(shown).to.deep.equal(rows.map(({ issues }) => issues.replace(/ \(.*\)$/, '')));
  });
});
