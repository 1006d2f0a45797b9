/**
 * Filter options: the filter's caseSensitive is the negation of the sibling collection's ignoreCase, and
 * typeValidation is `loose` when looseTypeValidation is true, else `strict`. Both options default to true. The
 * definitions write this as expressions; `resolveFilterTypeOptions` evaluates them with the safe evaluator and
 * gives the same answer as the plain function.
 */
import { resolveExpression } from './expression.js';
import { isObject } from './rules/context.js';

export const FILTER_OPTION_DEFAULTS = Object.freeze({ ignoreCase: true, looseTypeValidation: true });

/** The expressions a filter definition carries, reading the sibling `options` collection. */
export const FILTER_OPTION_EXPRESSIONS = Object.freeze({
  caseSensitive: '={{ !$parameter.options.ignoreCase }}',
  typeValidation: "={{ $parameter.options.looseTypeValidation ? 'loose' : 'strict' }}",
});

export interface FilterRuntimeOptions {
  caseSensitive: boolean;
  typeValidation: 'strict' | 'loose';
}

export function resolveFilterOptions(options: { ignoreCase?: boolean; looseTypeValidation?: boolean } = {}): FilterRuntimeOptions {
  const { ignoreCase, looseTypeValidation } = { ...FILTER_OPTION_DEFAULTS, ...options };
  return { caseSensitive: !ignoreCase, typeValidation: looseTypeValidation ? 'loose' : 'strict' };
}

/** Evaluates a filter definition's typeOptions.filter against the node's parameters (defaults applied). */
export function resolveFilterTypeOptions(filter: unknown, parameters: Readonly<Record<string, unknown>>): FilterRuntimeOptions {
  const given = isObject(parameters.options) ? parameters.options : {};
  const $parameter = { ...parameters, options: { ...FILTER_OPTION_DEFAULTS, ...given } };
  const source = isObject(filter) ? filter : FILTER_OPTION_EXPRESSIONS;
  const caseSensitive = resolveExpression(source.caseSensitive ?? true, { $parameter });
  const typeValidation = resolveExpression(source.typeValidation ?? 'strict', { $parameter });
  return { caseSensitive: caseSensitive === true || caseSensitive === 'true', typeValidation: typeValidation === 'loose' ? 'loose' : 'strict' };
}
