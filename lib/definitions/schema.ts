/**
 * The JSON Schema of node descriptions and property definitions: what can be said structurally (fields, their
 * types, enums, ranges). It is compiled once by the validators and also shipped as a file for editors'
 * `$schema` completion (`dist/definitions/node-description.schema.json`). Rules a schema cannot express live in
 * `rules/`. Unknown keys are allowed everywhere (the platform adds fields often); `rules/type-options.ts` warns
 * about unknown typeOptions keys.
 */
import { CONDITION_OPERATORS, FIELD_TYPES, HINT_LOCATIONS, HINT_TYPES, HINT_WHEN, PLATFORM_ONLY_TYPES, PROPERTY_TYPES } from './types.js';

const text = { type: 'string' };
const flag = { type: 'boolean' };
const displayRules = {
  type: 'object',
  additionalProperties: { type: 'array', description: 'Values of the key for which the rule holds; `{ _cnd: { op: … } }` entries compare.' },
};
const displayOptions = {
  type: 'object',
  properties: { show: displayRules, hide: displayRules, showOnDeployment: { enum: ['cloud', 'hosted'] } },
};

const typeOptionsByType: Record<string, object> = {
  string: {
    password: { ...flag, description: 'Masked input; the field should be required with default "".' },
    rows: { type: 'integer', minimum: 1, description: 'Rows of a multi-row input.' },
    editor: { type: 'string', description: 'htmlEditor, codeNodeEditor, jsEditor, sqlEditor or cssEditor.' },
  },
  number: {
    minValue: { type: 'number' },
    maxValue: { type: 'number' },
    numberPrecision: { type: 'integer', minimum: 0, description: 'Decimal places.' },
  },
  options: { loadOptionsMethod: text, loadOptionsDependsOn: { type: 'array', items: text } },
  multiOptions: { loadOptionsMethod: text, loadOptionsDependsOn: { type: 'array', items: text } },
  fixedCollection: { multipleValues: flag, multipleValueButtonText: text, sortable: flag, minRequiredFields: { type: 'integer', minimum: 0 }, maxAllowedFields: { type: 'integer', minimum: 0 } },
  filter: {
    filter: {
      type: 'object',
      properties: {
        caseSensitive: { type: ['boolean', 'string'] },
        typeValidation: { type: 'string', description: '`strict`, `loose`, or an expression resolving to one.' },
        leftValue: text,
        allowedCombinators: { type: 'array', minItems: 1, items: { enum: ['and', 'or'] } },
        maxConditions: { type: 'integer', minimum: 1 },
      },
    },
  },
  resourceMapper: {
    resourceMapper: {
      type: 'object',
      required: ['mode'],
      properties: {
        resourceMapperMethod: text,
        localResourceMapperMethod: text,
        mode: { enum: ['add', 'update', 'upsert', 'map'] },
        valuesLabel: text,
        fieldWords: { type: 'object', required: ['singular', 'plural'], properties: { singular: text, plural: text } },
        addAllFields: flag,
        noFieldsError: text,
        multiKeyMatch: flag,
        supportAutoMap: flag,
        matchingFieldsLabels: { type: 'object', properties: { title: text, description: text, hint: text } },
      },
    },
  },
};

const mode = {
  type: 'object',
  required: ['displayName', 'name', 'type'],
  properties: {
    displayName: text,
    name: text,
    type: { enum: ['string', 'list'] },
    hint: text,
    placeholder: text,
    url: text,
    validation: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'properties'],
        properties: { type: { const: 'regex' }, properties: { type: 'object', required: ['regex', 'errorMessage'], properties: { regex: text, errorMessage: text } } },
      },
    },
    // A JS description may hold a RegExp here (the platform accepts both); rules/resource-locator.ts checks it.
    extractValue: { type: 'object', required: ['type', 'regex'], properties: { type: { const: 'regex' } } },
    typeOptions: { type: 'object', properties: { searchListMethod: text, searchable: flag, searchFilterRequired: flag } },
  },
};

const typeSpecific = Object.entries(typeOptionsByType).map(([type, properties]) => ({
  if: { properties: { type: { const: type } } },
  then: { properties: { typeOptions: { type: 'object', properties } } },
}));

/** Every type a definition may have: the schema's enum, for editors' completion (rules/element-type.ts judges it). */
export const ELEMENT_TYPE_NAMES: readonly string[] = [...PROPERTY_TYPES, ...PLATFORM_ONLY_TYPES];

export const NODE_DESCRIPTION_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  // A name, not an address: nothing serves the schema on the web; editors take it from the package's file.
  $id: 'urn:workflow-webhooks:node-description',
  title: 'Node description with property definitions',
  type: 'object',
  required: ['properties'],
  properties: {
    displayName: text,
    name: text,
    properties: { type: 'array', items: { $ref: '#/definitions/property' } },
    hints: { type: 'array', items: { $ref: '#/definitions/hint' } },
    methods: { type: 'object' },
  },
  definitions: {
    property: {
      type: 'object',
      required: ['displayName', 'name', 'type', 'default'],
      properties: {
        displayName: text,
        name: text,
        type: {
          enum: ELEMENT_TYPE_NAMES,
          description: `The element type. Every host renders the 15 element types (${PROPERTY_TYPES.join(', ')}); ` +
            `${PLATFORM_ONLY_TYPES.join(', ')} are n8n's own and are accepted with a warning.`,
        },
        default: { description: 'Initial value; its shape depends on the type.' },
        required: flag,
        description: text,
        placeholder: text,
        hint: text,
        noDataExpression: flag,
        isNodeSetting: flag,
        requiresDataPath: { enum: ['single', 'multiple'] },
        validateType: { enum: [...FIELD_TYPES] },
        typeOptions: { type: 'object' },
        displayOptions,
        disabledOptions: displayOptions,
        options: { type: 'array' },
        modes: { type: 'array', items: mode },
      },
      allOf: [
        ...typeSpecific,
        { if: { properties: { type: { enum: ['options', 'multiOptions'] } } }, then: { properties: { options: { items: { $ref: '#/definitions/optionEntry' } } } } },
        { if: { properties: { type: { const: 'collection' } } }, then: { properties: { options: { items: { $ref: '#/definitions/property' } } } } },
        { if: { properties: { type: { const: 'fixedCollection' } } }, then: { properties: { options: { items: { $ref: '#/definitions/group' } } } } },
      ],
    },
    optionEntry: {
      type: 'object',
      required: ['name', 'value'],
      properties: { name: text, value: { type: ['string', 'number', 'boolean'] }, description: text, action: text, displayOptions },
    },
    group: {
      type: 'object',
      required: ['name', 'displayName', 'values'],
      properties: { name: text, displayName: text, values: { type: 'array', items: { $ref: '#/definitions/property' } } },
    },
    hint: {
      type: 'object',
      required: ['message'],
      properties: {
        message: text,
        type: { enum: [...HINT_TYPES] },
        location: { enum: [...HINT_LOCATIONS] },
        whenToDisplay: { enum: [...HINT_WHEN] },
        displayCondition: text,
      },
    },
    condition: {
      type: 'object',
      required: ['_cnd'],
      properties: { _cnd: { type: 'object', minProperties: 1, maxProperties: 1, propertyNames: { enum: [...CONDITION_OPERATORS] } } },
    },
  },
} as const;
