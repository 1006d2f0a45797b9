/**
 * How large RE2's program for a pattern will be, counted from the pattern's text before anything is compiled. RE2
 * compiles a bounded repeat by copying what it repeats (`\w{0,99}` is a hundred copies of `\w`), compiling takes
 * time in proportion to the program, and a string costs its length times the program's size to match: so a pattern
 * too large is refused while that time has not been spent.
 */

/** About how many instructions RE2's program for `pattern` will have: a little more, never much less. */
export function programEstimate(pattern: string): number {
  const groups: { total: number; last: number }[] = [{ total: 0, last: 0 }];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    const top = groups[groups.length - 1] as { total: number; last: number };
    if (char === '(') {
      groups.push({ total: 0, last: 0 });
      if (pattern[i + 1] === '?') i = pattern[i + 2] === '<' && !'=!'.includes(pattern[i + 3] ?? '') ? pattern.indexOf('>', i) : i + 2;
      continue;
    }
    if (char === ')' && groups.length > 1) {
      groups.pop();
      const outer = groups[groups.length - 1] as { total: number; last: number };
      outer.total += top.total + 1;
      outer.last = top.total + 1;
      continue;
    }
    const repeat = /^(?:[*+?]|\{(\d+)(,(\d*))?\})/.exec(pattern.slice(i, i + 24));
    if (repeat !== null) {
      const least = Number(repeat[1] ?? 0);
      const copies = repeat[1] === undefined ? 1 : repeat[2] === undefined ? least : repeat[3] === '' ? least + 1 : Number(repeat[3]);
      top.total += top.last * (copies - 1) + copies;
      top.last *= copies;
      i += repeat[0].length - 1;
      continue;
    }
    if (char === '|') {
      top.total += 1;
      top.last = 0;
      continue;
    }
    if (char === '\\') i += /^[upP]\{/.test(pattern.slice(i + 1, i + 3)) ? Math.max(pattern.indexOf('}', i) - i, 1) : 1;
    else if (char === '[') i = classEndAt(pattern, i);
    top.total += 1;
    top.last = 1;
  }
  return (groups[0] as { total: number }).total + 2;
}

/** The index of the `]` closing the class opened at `start` (or the end). */
function classEndAt(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  return pattern.length;
}

/** Instructions one pattern's program may have: about 40 ms to compile, and a string costs its length times this. */
export const MAX_PROGRAM = 2_000;
