/**
 * The workers' completion logs, read back by the fault specs: which calls ran to completion, how often, which ran
 * twice at once, and waiting (by polling, with an overall limit) until every call that must run has run.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { CompletionLine } from './worker-entry.js';

/** Every line of the given logs: runs begun and runs completed. */
export function loggedRuns(logs: string[]): CompletionLine[] {
  const lines: CompletionLine[] = [];
  for (const log of logs) {
    if (!existsSync(log)) continue;
    for (const text of readFileSync(log, 'utf8').split('\n')) {
      // A worker killed mid-write could leave half a line; it is neither a begin nor a completion.
      if (text.endsWith('}')) lines.push(JSON.parse(text) as CompletionLine);
    }
  }
  return lines;
}

/** Every completed run in the given logs. */
export function completedRuns(logs: string[]): CompletionLine[] {
  return loggedRuns(logs).filter((line) => line.endedAt !== undefined);
}

/** Two runs of one call whose times overlap: both were running at once. */
export interface Overlap {
  callId: string;
  runs: [CompletionLine, CompletionLine];
}

/**
 * The calls that ran twice at once. A run lasts from its begin line to its completion line; one never completed
 * lasts until its worker was killed (`killedAt`, by worker name), or for ever when its worker was not killed.
 */
export function overlappingRuns(logs: string[], killedAt: ReadonlyMap<string, number>): Overlap[] {
  const ends = new Map<string, number>();
  for (const line of completedRuns(logs)) ends.set(line.runId, line.endedAt as number);
  const byCall = new Map<string, CompletionLine[]>();
  for (const line of loggedRuns(logs)) {
    if (line.endedAt !== undefined) continue;
    byCall.set(line.callId, [...(byCall.get(line.callId) ?? []), line]);
  }
  const endOf = (run: CompletionLine): number => ends.get(run.runId) ?? killedAt.get(run.worker) ?? Number.POSITIVE_INFINITY;
  const overlaps: Overlap[] = [];
  for (const [callId, runs] of byCall) {
    for (let first = 0; first < runs.length; first += 1) {
      for (let second = first + 1; second < runs.length; second += 1) {
        const [a, b] = [runs[first] as CompletionLine, runs[second] as CompletionLine];
        if (a.startedAt < endOf(b) && b.startedAt < endOf(a)) overlaps.push({ callId, runs: [a, b] });
      }
    }
  }
  return overlaps;
}

/** The call ids whose run began at least once (completed or not). */
export function begunCalls(logs: string[]): Set<string> {
  return new Set(loggedRuns(logs).map((line) => line.callId));
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
