/**
 * The workers' completion logs, read back by the fault specs: which calls ran to completion, how often, and
 * waiting (by polling, with an overall limit) until every call that must run has run.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { CompletionLine } from './worker-entry.js';

/** Every completed run in the given logs. */
export function completedRuns(logs: string[]): CompletionLine[] {
  const lines: CompletionLine[] = [];
  for (const log of logs) {
    if (!existsSync(log)) continue;
    for (const text of readFileSync(log, 'utf8').split('\n')) {
      // A worker killed mid-write could leave half a line; it is not a completion.
      if (text.endsWith('}')) lines.push(JSON.parse(text) as CompletionLine);
    }
  }
  return lines;
}

/** How many times each call id ran to completion, over all the given logs. */
export function completions(logs: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of completedRuns(logs)) counts.set(line.callId, (counts.get(line.callId) ?? 0) + 1);
  return counts;
}

/** The ids among `ids` with no completion in `logs`. */
export function notCompleted(logs: string[], ids: Iterable<string>): string[] {
  const counts = completions(logs);
  return [...ids].filter((id) => !counts.has(id));
}

/** Polls until every id has completed or `limitMs` passed; resolves the ids still missing (none when all ran). */
export async function waitForCompletions(logs: string[], ids: string[], limitMs: number): Promise<string[]> {
  const until = Date.now() + limitMs;
  for (;;) {
    const missing = notCompleted(logs, ids);
    if (missing.length === 0 || Date.now() > until) return missing;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Polls `probe` until it is true or `limitMs` passed; resolves whether it became true. */
export async function eventually(probe: () => boolean | Promise<boolean>, limitMs: number, everyMs = 100): Promise<boolean> {
  const until = Date.now() + limitMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
