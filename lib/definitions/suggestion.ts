/**
 * "Did you mean …?": the known name closest to a mistyped one. Shared by the validators' unknown-key warnings and
 * the Webhook node's unknown-option warnings at activation, so that both guess alike.
 */

/** Edit distance, bounded: only near misses (at most two edits) are worth suggesting. */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 3;
}

/** The known name within two edits of `key` (a case-only difference wins outright), or undefined. */
export function suggestion(key: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = candidate.toLowerCase() === key.toLowerCase() ? 0 : distance(key, candidate);
    if (d < bestDistance) { best = candidate; bestDistance = d; }
  }
  return best;
}
