/** Node hints: the defaults a hint gets when a field is left out. */
import { resolveExpression } from './expression.js';
import type { NodeHint } from './types.js';

export interface ResolvedNodeHint {
  message: string;
  type: 'info' | 'warning' | 'danger';
  /** Where it shows: both panes when the hint names none. */
  locations: ('inputPane' | 'outputPane' | 'ndv')[];
  whenToDisplay: 'always' | 'beforeExecution' | 'afterExecution';
  displayCondition: string | true;
}

/** Applies the defaults of the fields left out: type `info`, both panes, `always`, a condition that holds. */
export function applyHintDefaults(hint: NodeHint): ResolvedNodeHint {
  return {
    message: hint.message,
    type: hint.type ?? 'info',
    locations: hint.location === undefined ? ['inputPane', 'outputPane'] : [hint.location],
    whenToDisplay: hint.whenToDisplay ?? 'always',
    displayCondition: hint.displayCondition ?? true,
  };
}

export interface HintStage {
  stage: 'beforeExecution' | 'afterExecution';
  location: 'inputPane' | 'outputPane';
  /** The node's parameters, as `$parameter` in displayCondition expressions. */
  parameters?: Readonly<Record<string, unknown>>;
}

function conditionHolds(condition: string | true, parameters: Readonly<Record<string, unknown>>): boolean {
  if (condition === true) return true;
  try {
    const value = resolveExpression(condition.startsWith('=') ? condition : `=${condition}`, { $parameter: parameters });
    return value === true || value === 'true';
  } catch {
    // A condition that cannot be evaluated hides its hint, as the platform's editor does.
    return false;
  }
}

/** The hints to show at a stage and location, defaults applied and displayCondition evaluated. */
export function resolveHints(hints: readonly NodeHint[], at: HintStage): ResolvedNodeHint[] {
  return hints.map(applyHintDefaults).filter((hint) => {
    if (hint.whenToDisplay !== 'always' && hint.whenToDisplay !== at.stage) return false;
    if (!hint.locations.includes(at.location) && !hint.locations.includes('ndv')) return false;
    return conditionHolds(hint.displayCondition, at.parameters ?? {});
  });
}

/** A hint produced by a run (a dynamic hint): message and location only. */
export interface ExecutionHint {
  message: string;
  location?: 'inputPane' | 'outputPane' | 'ndv';
  type?: 'info' | 'warning' | 'danger';
}

/**
 * The execution output of a programmatic node: the output data with its hints, or the plain data when no hint
 * applies. A workflow executor returns `{ items, hints }` the same way.
 */
export function executionOutput<T>(data: T, hints: readonly ExecutionHint[] = []): T | { data: T; hints: ExecutionHint[] } {
  return hints.length === 0 ? data : { data, hints: [...hints] };
}
