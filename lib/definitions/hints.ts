/** Node hints (spec 2.4): the defaults a hint gets when a field is left out. */
import type { NodeHint } from './types.js';

export interface ResolvedNodeHint {
  message: string;
  type: 'info' | 'warning' | 'danger';
  /** Where it shows: both panes when the hint names none. */
  locations: ('inputPane' | 'outputPane' | 'ndv')[];
  whenToDisplay: 'always' | 'beforeExecution' | 'afterExecution';
  displayCondition: string | true;
}

/** Applies the spec's defaults: type `info`, both panes, `always`, a condition that holds. */
export function applyHintDefaults(hint: NodeHint): ResolvedNodeHint {
  return {
    message: hint.message,
    type: hint.type ?? 'info',
    locations: hint.location === undefined ? ['inputPane', 'outputPane'] : [hint.location],
    whenToDisplay: hint.whenToDisplay ?? 'always',
    displayCondition: hint.displayCondition ?? true,
  };
}
