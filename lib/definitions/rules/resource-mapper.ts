/**
 * Resource mapper (ResourceMapperTypeOptions): default `{ mappingMode, value: null }`, exactly one
 * mapping method (remote or local) that exists when methods are known, and the combinations that do nothing.
 */
import { describeValue } from '../findings.js';
import { isObject, typeOptionsOf, type PropertyRule } from './context.js';

export const checkResourceMapper: PropertyRule = (definition, at, { findings, methods }) => {
  if (definition.type !== 'resourceMapper') return;
  const value = definition.default;
  const mappingMode = isObject(value) ? value.mappingMode : undefined;
  if (!isObject(value) || (mappingMode !== 'defineBelow' && mappingMode !== 'autoMapInputData')) {
    findings.report('resource-mapper-default', at, `default must be { mappingMode: 'defineBelow' | 'autoMapInputData', value: null }; got ${describeValue(value)}`, ['default']);
  } else if (value.value !== null) {
    // A saved workflow's value is an object; a definition's default is what a new node starts with, before any
    // field is fetched: null.
    findings.report('resource-mapper-default', at, `default value must be null (a new node has no mapping until its fields are fetched); got ${describeValue(value.value)}`, ['default']);
  }
  const options = typeOptionsOf(definition).resourceMapper;
  if (!isObject(options)) {
    findings.report('missing-field', at, 'typeOptions.resourceMapper is required (resourceMapperMethod and mode)', ['typeOptions', 'resourceMapper']);
    return;
  }
  const remote = typeof options.resourceMapperMethod === 'string';
  const local = typeof options.localResourceMapperMethod === 'string';
  if (remote === local) {
    findings.report('resource-mapper-method', at, remote
      ? 'typeOptions.resourceMapper names both resourceMapperMethod and localResourceMapperMethod; keep one'
      : 'typeOptions.resourceMapper needs resourceMapperMethod (or localResourceMapperMethod): the method that fetches the schema', ['typeOptions', 'resourceMapper']);
  }
  const method = remote ? options.resourceMapperMethod : options.localResourceMapperMethod;
  const known = remote ? methods?.resourceMapping : methods?.localResourceMapping;
  if (remote !== local && typeof method === 'string' && known !== undefined && !known.has(method)) {
    findings.report('unknown-method', at, `'${method}' is not in the node's methods.${remote ? 'resourceMapping' : 'localResourceMapping'}`,
      ['typeOptions', 'resourceMapper', remote ? 'resourceMapperMethod' : 'localResourceMapperMethod']);
  }
  if (options.multiKeyMatch === true && options.mode === 'add') {
    findings.report('multi-key-match-in-add', at, "multiKeyMatch only applies to 'update' and 'upsert' modes; in 'add' it does nothing", ['typeOptions', 'resourceMapper', 'multiKeyMatch']);
  }
  if (options.supportAutoMap === false && mappingMode === 'autoMapInputData') {
    findings.report('auto-map-default', at, "supportAutoMap: false hides the mapping mode selector and uses 'defineBelow'; the default 'autoMapInputData' is never used", ['default', 'mappingMode']);
  }
};
