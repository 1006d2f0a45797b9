/**
 * The corpus figures: how many descriptions, how many flagged with errors, errors and warnings by code, and the
 * comparison with the committed list of genuine defects (known-defects.json), as text for a terminal and for
 * bench/README.md.
 */
import type { Finding } from '../../lib/definitions/index.js';

export interface Checked { label: string; errors: Finding[]; warnings: Finding[] }

export interface KnownDefect { node: string; path: string; code: string; why: string }

/** How a finding is matched against the list: node label, pointer and code (messages may be reworded). */
export const defectKey = (node: string, path: string, code: string): string => `${node} ${path} ${code}`;

function byCode(findings: Finding[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const finding of findings) counts.set(finding.code, (counts.get(finding.code) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export interface Comparison { unexpected: Finding[]; unexpectedNodes: string[]; missing: KnownDefect[] }

export function compare(checked: Checked[], known: KnownDefect[]): Comparison {
  const listed = new Set(known.map((defect) => defectKey(defect.node, defect.path, defect.code)));
  const found = new Set<string>();
  const unexpected: Finding[] = [];
  const unexpectedNodes: string[] = [];
  for (const { label, errors } of checked) {
    for (const error of errors) {
      const key = defectKey(label, error.path, error.code);
      found.add(key);
      if (!listed.has(key)) { unexpected.push(error); unexpectedNodes.push(label); }
    }
  }
  return { unexpected, unexpectedNodes, missing: known.filter((defect) => !found.has(defectKey(defect.node, defect.path, defect.code))) };
}

export function summary(checked: Checked[], timing: string): string {
  const errors = checked.flatMap((node) => node.errors);
  const warnings = checked.flatMap((node) => node.warnings);
  const table = (rows: [string, number][]): string => rows.map(([code, count]) => `| \`${code}\` | ${count} |`).join('\n') || '| — | 0 |';
  return [
    `| descriptions | flagged (≥ 1 error) | errors | with warnings | warnings |`,
    '|---|---|---|---|---|',
    `| ${checked.length} | ${checked.filter((node) => node.errors.length > 0).length} | ${errors.length} | ${checked.filter((node) => node.warnings.length > 0).length} | ${warnings.length} |`,
    '',
    timing,
    '',
    '| error code | count |',
    '|---|---|',
    table(byCode(errors)),
    '',
    '| warning code | count |',
    '|---|---|',
    table(byCode(warnings)),
  ].join('\n');
}
