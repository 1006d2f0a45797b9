/**
 * Resource locator values `{ __rl: true, mode, value }`: the mode must exist, the value must pass the
 * mode's regex validations (the issue text is the validation's errorMessage), extractValue pulls the ID out of an
 * entered URL, and the mode's `url` expression is resolved with the entered value.
 */
import { isObject } from '../rules/context.js';
import { compileRegex } from '../rules/regex.js';
import { isExpressionValue, resolveExpression } from '../expression.js';

export interface LocatorIssue { code: string; message: string }

function modeOf(definition: Record<string, unknown>, name: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(definition.modes)) return undefined;
  return definition.modes.find((mode): mode is Record<string, unknown> => isObject(mode) && mode.name === name);
}

/** The platform anchors validation regexes: the whole value must match. */
function anchored(source: string): RegExp | undefined {
  const compiled = compileRegex(`^(?:${source})$`);
  return typeof compiled === 'string' ? undefined : compiled;
}

export function checkLocatorValue(definition: Record<string, unknown>, value: unknown): LocatorIssue[] {
  if (value === '' || value === undefined || value === null) return [];
  if (!isObject(value)) return [{ code: 'wrong-shape', message: 'expects { mode, value } (a resource locator value)' }];
  const mode = modeOf(definition, value.mode);
  if (mode === undefined) {
    const names = Array.isArray(definition.modes) ? definition.modes.filter(isObject).map((m) => `'${String(m.name)}'`).join(', ') : '';
    return [{ code: 'unknown-mode', message: `mode '${String(value.mode)}' is not one of the modes ${names}` }];
  }
  const entered = value.value;
  if (entered === '' || entered === undefined || entered === null || isExpressionValue(entered) || !Array.isArray(mode.validation)) return [];
  const issues: LocatorIssue[] = [];
  for (const validation of mode.validation) {
    const properties = isObject(validation) ? validation.properties : undefined;
    if (!isObject(properties) || typeof properties.regex !== 'string') continue;
    const regex = anchored(properties.regex);
    if (regex !== undefined && !regex.test(String(entered as string | number))) {
      issues.push({ code: 'validation-failed', message: typeof properties.errorMessage === 'string' ? properties.errorMessage : `does not match ${properties.regex}` });
    }
  }
  return issues;
}

/** The ID of a locator value: extractValue's one capture group for the mode, else the value itself. */
export function extractLocatorValue(definition: Record<string, unknown>, value: unknown): unknown {
  if (!isObject(value)) return value;
  const mode = modeOf(definition, value.mode);
  const given = mode !== undefined && isObject(mode.extractValue) ? mode.extractValue.regex : undefined;
  const extract = given instanceof RegExp ? given.source : given;
  if (typeof extract !== 'string' || typeof value.value !== 'string') return value.value;
  const regex = compileRegex(extract);
  if (typeof regex === 'string') throw new Error(`Property "${String(definition.name)}" has an invalid extractValue regex "${extract}".`);
  const match = regex.exec(value.value);
  if (match === null) {
    throw new Error(`${String(definition.displayName)} parameter's value is invalid. This is likely because the URL entered is incorrect.`);
  }
  if (match.length !== 2) {
    throw new Error(`Property "${String(definition.name)}" has an invalid extractValue regex "${extract}". extractValue expects exactly one group to be returned.`);
  }
  return match[1];
}

/** The mode's "open" link with the entered value put in (`{{ $value }}`), or undefined when the mode has none. */
export function resolveLocatorUrl(definition: Record<string, unknown>, value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const url = modeOf(definition, value.mode)?.url;
  if (typeof url !== 'string') return undefined;
  const resolved = resolveExpression(url.startsWith('=') ? url : `=${url}`, { $value: value.value });
  return typeof resolved === 'string' ? resolved : String(resolved);
}
