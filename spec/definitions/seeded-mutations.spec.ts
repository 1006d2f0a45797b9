import { expect } from 'chai';
import { validateNodeDescription } from '../../lib/definitions/index.js';
import { helpdeskNode } from './helpdesk-node.js';

/**
 * Seeded mutations: each kind breaks one rule of the spec, at every place of a valid, real-shaped description where
 * the rule applies, and the validator must report the rule's code at that place's pointer.
 */
type Def = Record<string, any>;
interface Site { def: Def; pointer: string }
/** One broken copy: where to break it, how, and where the finding must point. */
interface Seed { target: string; mutate: (target: Def) => void; at: string }
interface Kind { rule: string; code: string; seeds: (description: Def) => Seed[] }

function sitesOf(list: unknown[], pointer: string): Site[] {
  return list.flatMap((def, index) => {
    const here = { def: def as Def, pointer: `${pointer}/${index}` };
    const d = def as Def;
    if (d.type === 'collection') return [here, ...sitesOf(d.options as unknown[], `${here.pointer}/options`)];
    if (d.type === 'fixedCollection') return [here, ...(d.options as Def[]).flatMap((group, g) => sitesOf(group.values as unknown[], `${here.pointer}/options/${g}/values`))];
    return [here];
  });
}

function resolve(root: Def, pointer: string): Def {
  return pointer.split('/').slice(1).reduce<Def>((value, segment) => value[segment.replace(/~1/g, '/')] as Def, root);
}

/** Seeds for every definition that `applies` to, breaking it (or a part of it, `part`) with `mutate`. */
function each(applies: (def: Def, pointer: string) => boolean, mutate: (target: Def) => void, at: string, part = ''): (description: Def) => Seed[] {
  return (description) => sitesOf(description.properties as unknown[], '/properties')
    .filter(({ def, pointer }) => applies(def, pointer))
    .map(({ pointer }) => ({ target: `${pointer}${part}`, mutate, at: `${pointer}${at}` }));
}

/** Seeds for every item (that `keep` picks) of lists inside the definitions `applies` to: modes, groups, validations. */
function eachItem(applies: (def: Def) => boolean, list: (def: Def) => { path: string; items: Def[] }[], mutate: (item: Def) => void, at: string, keep: (item: Def) => boolean = () => true): (description: Def) => Seed[] {
  return (description) => sitesOf(description.properties as unknown[], '/properties').filter(({ def }) => applies(def))
    .flatMap(({ def, pointer }) => list(def).flatMap(({ path, items }) => items.flatMap((item, i) => (keep(item) ? [{ target: `${pointer}${path}/${i}`, mutate, at: `${pointer}${path}/${i}${at}` }] : []))));
}

const is = (type: string) => (def: Def): boolean => def.type === type;
const top = (pointer: string): boolean => /^\/properties\/\d+$/.test(pointer);
const modes = (def: Def) => [{ path: '/modes', items: def.modes as Def[] }];
const rm = (def: Def): Def => def.typeOptions.resourceMapper as Def;

const KINDS: Kind[] = [
  { rule: 'displayName is required', code: 'missing-field', seeds: each(() => true, (d) => { delete d.displayName; }, '/displayName') },
  { rule: 'name is required', code: 'missing-field', seeds: each(() => true, (d) => { delete d.name; }, '/name') },
  { rule: 'type is one of the element types', code: 'unknown-type', seeds: each(() => true, (d) => { d.type = 'textarea'; }, '/type') },
  { rule: 'default is given (a number may leave it out)', code: 'missing-field', seeds: each((d) => d.type !== 'number', (d) => { delete d.default; }, '/default') },
  { rule: 'a boolean default is a boolean', code: 'default-wrong-shape', seeds: each(is('boolean'), (d) => { d.default = 'true'; }, '/default') },
  { rule: 'a number default is a number', code: 'default-wrong-shape', seeds: each(is('number'), (d) => { d.default = '10'; }, '/default') },
  { rule: 'a collection default is an empty object', code: 'collection-default-not-empty', seeds: each(is('collection'), (d) => { d.default = { extra: 1 }; }, '/default') },
  { rule: 'a multiOptions default is an array', code: 'default-wrong-shape', seeds: each(is('multiOptions'), (d) => { d.default = 'a'; }, '/default') },
  { rule: 'an options default is one of its values', code: 'default-not-an-option', seeds: each((d) => d.type === 'options' && Array.isArray(d.options), (d) => { d.default = 'nope'; }, '/default') },
  { rule: 'option entries have a value', code: 'missing-field', seeds: each((d) => d.type === 'options' && Array.isArray(d.options), (d) => { delete d.options[0].value; }, '/options/0/value') },
  { rule: "a password field's default is ''", code: 'password-default', seeds: each((d) => d.typeOptions?.password === true, (d) => { d.default = 'hunter2'; }, '/default') },
  { rule: 'a top-level password field is required', code: 'password-not-required', seeds: each((d, p) => d.typeOptions?.password === true && top(p), (d) => { delete d.required; }, '/required') },
  { rule: 'rows is an integer', code: 'wrong-type', seeds: each((d) => d.typeOptions?.rows !== undefined, (d) => { d.typeOptions.rows = 2.5; }, '/typeOptions/rows') },
  { rule: 'an HTML editor field blocks whole-field expressions', code: 'html-editor-expression', seeds: each((d) => d.typeOptions?.editor === 'htmlEditor', (d) => { delete d.noDataExpression; }, '/noDataExpression') },
  { rule: 'requiresDataPath is single or multiple', code: 'invalid-value', seeds: each(is('string'), (d) => { d.requiresDataPath = 'several'; }, '/requiresDataPath') },
  { rule: 'numberPrecision is an integer', code: 'wrong-type', seeds: each((d) => d.typeOptions?.numberPrecision !== undefined, (d) => { d.typeOptions.numberPrecision = 1.5; }, '/typeOptions/numberPrecision') },
  { rule: 'minValue is not above maxValue', code: 'min-above-max', seeds: each((d) => d.typeOptions?.maxValue !== undefined, (d) => { d.typeOptions.minValue = d.typeOptions.maxValue + 1; }, '/typeOptions/minValue') },
  { rule: 'fixedCollection groups have a displayName', code: 'missing-field', seeds: eachItem(is('fixedCollection'), (d) => [{ path: '/options', items: d.options as Def[] }], (g) => { delete g.displayName; }, '/displayName') },
  { rule: 'multipleValues is a boolean', code: 'wrong-type', seeds: each((d) => d.typeOptions?.multipleValues !== undefined, (d) => { d.typeOptions.multipleValues = 'yes'; }, '/typeOptions/multipleValues') },
  { rule: 'a mode is of type string or list', code: 'invalid-value', seeds: eachItem(is('resourceLocator'), modes, (m) => { m.type = 'link'; }, '/type') },
  { rule: 'a list mode names its search method', code: 'list-mode-without-search-method', seeds: eachItem(is('resourceLocator'), modes, (m) => { delete m.typeOptions.searchListMethod; }, '/typeOptions', (m) => m.type === 'list') },
  { rule: 'validation regexes compile', code: 'regex-invalid', seeds: eachItem(is('resourceLocator'), (d) => (d.modes as Def[]).flatMap((m, i) => (m.validation === undefined ? [] : [{ path: `/modes/${i}/validation`, items: m.validation as Def[] }])), (v) => { v.properties.regex = '([a-z'; }, '/properties/regex') },
  { rule: "a mode's url is an expression", code: 'mode-url-unresolved', seeds: eachItem(is('resourceLocator'), modes, (m) => { m.url = String(m.url).slice(1); }, '/url', (m) => m.url !== undefined) },
  { rule: 'extractValue has one capture group', code: 'extract-value-groups', seeds: eachItem(is('resourceLocator'), modes, (m) => { m.extractValue.regex = String(m.extractValue.regex).replace(/[()]/g, ''); }, '/extractValue/regex', (m) => m.extractValue !== undefined) },
  { rule: "a resource mapper default's value is null", code: 'resource-mapper-default', seeds: each(is('resourceMapper'), (d) => { d.default.value = 'none'; }, '/default') },
  { rule: "a resource mapper default's value is null, not an empty mapping", code: 'resource-mapper-default', seeds: each(is('resourceMapper'), (d) => { d.default.value = {}; }, '/default') },
  { rule: "a resource mapper default's value is null, not a mapping", code: 'resource-mapper-default', seeds: each(is('resourceMapper'), (d) => { d.default.value = { id: 1 }; }, '/default') },
  { rule: 'the resource mapper mode is add, update or upsert', code: 'invalid-value', seeds: each(is('resourceMapper'), (d) => { rm(d).mode = 'delete'; }, '/typeOptions/resourceMapper/mode') },
  { rule: 'the resource mapper names its method', code: 'resource-mapper-method', seeds: each(is('resourceMapper'), (d) => { delete rm(d).resourceMapperMethod; }, '/typeOptions/resourceMapper') },
  { rule: 'multiKeyMatch applies to update and upsert only', code: 'multi-key-match-in-add', seeds: each(is('resourceMapper'), (d) => { rm(d).mode = 'add'; rm(d).multiKeyMatch = true; }, '/typeOptions/resourceMapper/multiKeyMatch') },
  { rule: 'supportAutoMap false means defineBelow', code: 'auto-map-default', seeds: each(is('resourceMapper'), (d) => { rm(d).supportAutoMap = false; d.default.mappingMode = 'autoMapInputData'; }, '/default/mappingMode') },
  { rule: 'fieldWords has singular and plural', code: 'missing-field', seeds: each(is('resourceMapper'), (d) => { delete rm(d).fieldWords.plural; }, '/typeOptions/resourceMapper/fieldWords/plural') },
  { rule: "a notice's default is ''", code: 'notice-default-not-empty', seeds: each(is('notice'), (d) => { d.default = 'More text'; }, '/default') },
  { rule: "a filter's typeValidation resolves to strict or loose", code: 'filter-type-validation', seeds: each(is('filter'), (d) => { d.typeOptions.filter.typeValidation = "={{ 'strictly' }}"; }, '/typeOptions/filter/typeValidation') },
  { rule: "a filter's caseSensitive is a boolean or an expression", code: 'wrong-type', seeds: each(is('filter'), (d) => { d.typeOptions.filter.caseSensitive = 1; }, '/typeOptions/filter/caseSensitive') },
  { rule: 'show.resource values name a resource', code: 'display-value-unknown', seeds: each((d, p) => top(p) && Array.isArray(d.displayOptions?.show?.resource), (d) => { d.displayOptions.show.resource[0] = 'tikcet'; }, '/displayOptions/show/resource/0') },
  { rule: 'show.operation values name an operation', code: 'display-value-unknown', seeds: each((d, p) => top(p) && Array.isArray(d.displayOptions?.show?.operation), (d) => { d.displayOptions.show.operation[0] = 'gett'; }, '/displayOptions/show/operation/0') },
  ...[null, 7, false].flatMap((entry) => (['resource', 'operation'] as const).map((key): Kind => ({
    rule: `show.${key} values are strings, not ${JSON.stringify(entry)}`, code: 'display-value-not-string',
    seeds: (description: Def) => sitesOf(description.properties as unknown[], '/properties').filter(({ def }) => Array.isArray(def.displayOptions?.show?.[key]))
      .map(({ def, pointer }) => ({ target: pointer, mutate: (d: Def) => { d.displayOptions.show[key].push(entry); }, at: `${pointer}/displayOptions/show/${key}/${def.displayOptions.show[key].length as number}` })),
  }))),
  { rule: 'displayOptions values are arrays', code: 'display-options-invalid', seeds: each((d) => Array.isArray(d.displayOptions?.show?.resource), (d) => { d.displayOptions.show.resource = d.displayOptions.show.resource[0]; }, '/displayOptions/show/resource') },
  { rule: "a hint's location is inputPane, outputPane or ndv", code: 'invalid-value', seeds: (d) => (d.hints as Def[]).map((_, i) => ({ target: `/hints/${i}`, mutate: (h) => { h.location = 'sidebar'; }, at: `/hints/${i}/location` })) },
  { rule: "a hint's type is info, warning or danger", code: 'invalid-value', seeds: (d) => (d.hints as Def[]).map((_, i) => ({ target: `/hints/${i}`, mutate: (h) => { h.type = 'error'; }, at: `/hints/${i}/type` })) },
  {
    rule: 'two fields of one name are not shown together', code: 'duplicate-name',
    seeds: (d) => (d.properties as Def[]).flatMap((def, i) => (def.type === 'notice' ? [] : [{ target: '/properties', mutate: (list: Def) => { (list as unknown as Def[]).splice(i + 1, 0, structuredClone(def)); }, at: `/properties/${i + 1}/name` }])),
  },
];

describe('seeded mutations of a valid description', () => {
  it('start from a description with no finding, even in strict mode', () => {
    expect(validateNodeDescription(helpdeskNode(), { strict: true })).to.deep.equal({ valid: true, errors: [], warnings: [] });
  });

  for (const kind of KINDS) {
    it(`catch every break of the rule: ${kind.rule} (${kind.code})`, () => {
      const seeds = kind.seeds(helpdeskNode());
      expect(seeds, 'the description has a place for this rule').to.not.be.empty;
      const missed = seeds.filter((seed) => {
        const description = helpdeskNode();
        seed.mutate(resolve(description, seed.target));
        const { errors, warnings } = validateNodeDescription(description);
        return ![...errors, ...warnings].some((finding) => finding.code === kind.code && finding.path === seed.at);
      });
      expect(missed.map((seed) => seed.at), `caught ${seeds.length - missed.length} of ${seeds.length}`).to.deep.equal([]);
    });
  }
});
