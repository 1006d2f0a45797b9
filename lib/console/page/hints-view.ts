/**
 * Node hints as an editor shows them: the description's hints that apply to the parameters entered and to the
 * stage (before or after a test run), evaluated with resolveHints, and the hints the run itself returned. Each
 * shows its type by colour and in words, and where it belongs.
 */
// The hints module itself, not the definitions entry point: the page's first script then carries only the hint
// resolver, and the validators the form renderer needs load with the Preview section.
import { resolveHints } from '../../definitions/hints.js';
import type { NodeHint } from 'workflow-webhooks/definitions';
import type { ExecutionHintDto } from '../protocol.js';
import { h, safeHtml } from './dom.js';

export type Pane = 'inputPane' | 'outputPane' | 'ndv';

export interface ShownHint { message: string; type: 'info' | 'warning' | 'danger'; where: string; when: string }

const PANE_NAMES: Record<Pane, string> = { inputPane: 'input pane', outputPane: 'output pane', ndv: 'node' };

/** The description's hints for one place: `ndv` hints belong to the node as a whole and show once, in the node's list. */
export function nodeHints(hints: readonly NodeHint[], pane: Pane, ran: boolean, parameters: Record<string, unknown>): ShownHint[] {
  const stage = ran ? 'afterExecution' : 'beforeExecution';
  const resolved = pane === 'ndv'
    ? resolveHints(hints, { stage, location: 'inputPane', parameters }).filter((hint) => hint.locations.includes('ndv'))
    : resolveHints(hints, { stage, location: pane, parameters }).filter((hint) => !hint.locations.includes('ndv'));
  return resolved.map((hint) => ({
    message: hint.message,
    type: hint.type,
    where: PANE_NAMES[pane],
    when: hint.whenToDisplay === 'always' ? 'always' : hint.whenToDisplay === 'beforeExecution' ? 'before execution' : 'after execution',
  }));
}

/** Hints the run returned ({ items, hints }), for one pane; a hint that names no pane shows in both. */
export function runHints(hints: readonly ExecutionHintDto[], pane: Pane): ShownHint[] {
  return hints
    .filter((hint) => (hint.location ?? pane) === pane || (hint.location === 'ndv' && pane === 'outputPane'))
    .map((hint) => ({ message: hint.message, type: hint.type ?? 'info', where: PANE_NAMES[pane], when: 'from this run' }));
}

export function hintsList(hints: ShownHint[]): HTMLElement | null {
  if (hints.length === 0) return null;
  return h('ul', { class: 'hints' }, ...hints.map((hint) => h('li', { class: `hint-box hint-${hint.type}`, 'data-hint-type': hint.type },
    h('span', { class: 'hint-meta' }, `${hint.type} · ${hint.where} · ${hint.when}`),
    h('span', { class: 'hint-message' }, safeHtml(hint.message)))));
}
