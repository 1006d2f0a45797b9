/**
 * Node property definitions (the fields a node shows in an editor): one union discriminated by `type`, each member with its own typeOptions.
 * These describe what node authors write; the validators check real input against them without trusting it.
 */

/** The 15 element types every host renders. */
export const PROPERTY_TYPES = [
  'string', 'number', 'collection', 'dateTime', 'boolean', 'color', 'options', 'multiOptions', 'filter',
  'assignmentCollection', 'fixedCollection', 'resourceLocator', 'resourceMapper', 'json', 'notice',
] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** Types n8n has beyond the 15, which other hosts need not render: accepted with a warning. */
export const PLATFORM_ONLY_TYPES = [
  'hidden', 'callout', 'button', 'credentialsSelect', 'credentials', 'curlImport', 'icon', 'workflowSelector', 'agentSelector',
] as const;
export type PlatformOnlyType = (typeof PLATFORM_ONLY_TYPES)[number];

/** `_cnd` operators of display conditions. */
export const CONDITION_OPERATORS = ['eq', 'not', 'gte', 'lte', 'gt', 'lt', 'between', 'startsWith', 'endsWith', 'includes', 'regex', 'exists'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export type Primitive = string | number | boolean | null;

export interface DisplayCondition {
  _cnd: Partial<Record<Exclude<ConditionOperator, 'between'>, unknown>> & { between?: { from: number | string; to: number | string } };
}

/** Keys are sibling parameter names, `/root` names, `@version`, `@feature` or `@tool`. */
export type DisplayRules = Record<string, (Primitive | DisplayCondition)[]>;

export interface DisplayOptions {
  show?: DisplayRules;
  hide?: DisplayRules;
  showOnDeployment?: 'cloud' | 'hosted';
}

interface PropertyBase {
  displayName: string;
  name: string;
  required?: boolean;
  description?: string;
  placeholder?: string;
  hint?: string;
  noDataExpression?: boolean;
  displayOptions?: DisplayOptions;
  disabledOptions?: DisplayOptions;
  /** `single`: one data key may be dropped on the field; `multiple`: a comma-separated list. */
  requiresDataPath?: 'single' | 'multiple';
  isNodeSetting?: boolean;
  validateType?: FieldType;
}

export interface StringProperty extends PropertyBase {
  type: 'string';
  default: string | string[];
  typeOptions?: {
    password?: boolean;
    rows?: number;
    editor?: 'htmlEditor' | 'codeNodeEditor' | 'jsEditor' | 'sqlEditor' | 'cssEditor';
    multipleValues?: boolean;
    alwaysOpenEditWindow?: boolean;
    [key: string]: unknown;
  };
}

export interface NumberProperty extends PropertyBase {
  type: 'number';
  /** `''` and null also mean "no value yet" (nodes in the wild use both). */
  default: number | '' | null;
  typeOptions?: { minValue?: number; maxValue?: number; numberPrecision?: number; [key: string]: unknown };
}

export interface OptionEntry {
  name: string;
  value: string | number | boolean;
  description?: string;
  action?: string;
  displayName?: string;
  displayOptions?: DisplayOptions;
}

export interface LoadOptionsTypeOptions {
  loadOptionsMethod?: string;
  loadOptionsDependsOn?: string[];
  loadOptions?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface OptionsProperty extends PropertyBase {
  type: 'options';
  default: string | number | boolean;
  options?: OptionEntry[];
  typeOptions?: LoadOptionsTypeOptions;
}

export interface MultiOptionsProperty extends PropertyBase {
  type: 'multiOptions';
  default: (string | number | boolean)[];
  options?: OptionEntry[];
  typeOptions?: LoadOptionsTypeOptions;
}

export interface CollectionProperty extends PropertyBase {
  type: 'collection';
  default: Record<string, unknown>;
  /** Optional fields the user adds; `placeholder` labels the add-button. */
  options: PropertyDefinition[];
  typeOptions?: { multipleValues?: boolean; [key: string]: unknown };
}

export interface FixedCollectionGroup {
  name: string;
  displayName: string;
  values: PropertyDefinition[];
}

export interface FixedCollectionProperty extends PropertyBase {
  type: 'fixedCollection';
  default: Record<string, unknown>;
  options: FixedCollectionGroup[];
  typeOptions?: { multipleValues?: boolean; multipleValueButtonText?: string; sortable?: boolean; minRequiredFields?: number; maxAllowedFields?: number; [key: string]: unknown };
}

export interface DateTimeProperty extends PropertyBase { type: 'dateTime'; default: string; typeOptions?: { dateOnly?: boolean; [key: string]: unknown } }
export interface BooleanProperty extends PropertyBase { type: 'boolean'; default: boolean; typeOptions?: Record<string, unknown> }
export interface ColorProperty extends PropertyBase { type: 'color'; default: string; typeOptions?: { showAlpha?: boolean; [key: string]: unknown } }
export interface JsonProperty extends PropertyBase { type: 'json'; default: string; typeOptions?: { rows?: number; alwaysOpenEditWindow?: boolean; [key: string]: unknown } }
export interface NoticeProperty extends PropertyBase { type: 'notice'; default: ''; typeOptions?: Record<string, unknown> }

export interface FilterTypeOptions {
  version?: 1 | 2 | 3 | Record<string, never>;
  /** A boolean, or an expression reading a sibling (`={{!$parameter.options.ignoreCase}}`). */
  caseSensitive?: boolean | string;
  /** An expression resolving to `strict` or `loose`. */
  typeValidation?: 'strict' | 'loose' | string;
  leftValue?: string;
  allowedCombinators?: ('and' | 'or')[];
  maxConditions?: number;
}

export interface FilterProperty extends PropertyBase { type: 'filter'; default: Record<string, unknown>; typeOptions?: { filter?: FilterTypeOptions; [key: string]: unknown } }
export interface AssignmentCollectionProperty extends PropertyBase { type: 'assignmentCollection'; default: Record<string, unknown>; typeOptions?: Record<string, unknown> }

export interface RegexValidation {
  type: 'regex';
  properties: { regex: string; errorMessage: string };
}

export interface ResourceLocatorMode {
  displayName: string;
  name: string;
  type: 'string' | 'list';
  hint?: string;
  placeholder?: string;
  validation?: RegexValidation[];
  /** An expression template of the "open" link; `{{$value}}` is the entered value. */
  url?: string;
  /** Pulls the ID out of an entered URL: exactly one capture group. */
  extractValue?: { type: 'regex'; regex: string };
  typeOptions?: { searchListMethod?: string; searchable?: boolean; searchFilterRequired?: boolean; [key: string]: unknown };
}

export interface ResourceLocatorValue {
  __rl?: true;
  mode: string;
  value: unknown;
  cachedResultName?: string;
  cachedResultUrl?: string;
}

export interface ResourceLocatorProperty extends PropertyBase {
  type: 'resourceLocator';
  default: ResourceLocatorValue | '';
  modes: ResourceLocatorMode[];
  typeOptions?: Record<string, unknown>;
}

/** Spec 2.3's eight field types, then the ones the platform adds. */
export const FIELD_TYPES = ['string', 'number', 'dateTime', 'boolean', 'time', 'array', 'object', 'options',
  'string-alphanumeric', 'url', 'jwt', 'form-fields', 'binary'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface ResourceMapperField {
  id: string;
  displayName: string;
  defaultMatch: boolean;
  canBeUsedToMatch?: boolean;
  required: boolean;
  display: boolean;
  type?: FieldType;
  removed?: boolean;
  options?: OptionEntry[];
  readOnly?: boolean;
  defaultValue?: string | number | boolean | null;
}

export interface ResourceMapperTypeOptions {
  resourceMapperMethod?: string;
  localResourceMapperMethod?: string;
  mode: 'add' | 'update' | 'upsert' | 'map';
  valuesLabel?: string;
  fieldWords?: { singular: string; plural: string };
  /** Default true. */
  addAllFields?: boolean;
  noFieldsError?: string;
  /** Default false; only for update and upsert. */
  multiKeyMatch?: boolean;
  supportAutoMap?: boolean;
  matchingFieldsLabels?: { title?: string; description?: string; hint?: string };
  [key: string]: unknown;
}

export interface ResourceMapperProperty extends PropertyBase {
  type: 'resourceMapper';
  default: { mappingMode: 'defineBelow' | 'autoMapInputData'; value: null };
  typeOptions: { resourceMapper: ResourceMapperTypeOptions; [key: string]: unknown };
}

/** A type the platform knows but the spec does not list. */
export interface PlatformOnlyProperty extends PropertyBase {
  type: PlatformOnlyType;
  default?: unknown;
  typeOptions?: Record<string, unknown>;
}

export type PropertyDefinition =
  | StringProperty | NumberProperty | CollectionProperty | DateTimeProperty | BooleanProperty | ColorProperty
  | OptionsProperty | MultiOptionsProperty | FilterProperty | AssignmentCollectionProperty | FixedCollectionProperty
  | ResourceLocatorProperty | ResourceMapperProperty | JsonProperty | NoticeProperty | PlatformOnlyProperty;

export const HINT_TYPES = ['info', 'warning', 'danger'] as const;
export const HINT_LOCATIONS = ['inputPane', 'outputPane', 'ndv'] as const;
export const HINT_WHEN = ['always', 'beforeExecution', 'afterExecution'] as const;

/** A node hint, shown in an editor's panes. Defaults: type `info`, both panes, `always`, condition true. */
export interface NodeHint {
  message: string;
  type?: (typeof HINT_TYPES)[number];
  location?: (typeof HINT_LOCATIONS)[number];
  whenToDisplay?: (typeof HINT_WHEN)[number];
  displayCondition?: string;
}

/** Names of the node's methods; a JS description may hold the functions themselves. */
export interface NodeMethods {
  loadOptions?: string[] | Record<string, unknown>;
  listSearch?: string[] | Record<string, unknown>;
  resourceMapping?: string[] | Record<string, unknown>;
  localResourceMapping?: string[] | Record<string, unknown>;
}

export interface NodeDescription {
  displayName?: string;
  name?: string;
  version?: number | number[];
  properties: PropertyDefinition[];
  hints?: NodeHint[];
  methods?: NodeMethods;
  [key: string]: unknown;
}
