/**
 * Finds a call's secrets inside a string in one pass, whatever their count and length (Aho–Corasick): a caller
 * chooses both the secrets (its headers and query) and the strings they are looked for in (its body, echoed by the
 * workflow), so looking for each secret in turn would cost the string's length times their count, and a search
 * for one long secret made of repeats (`aaa…baaa…` in `aaaa…`) costs its length times the string's. Most strings
 * are short and most calls carry one or two secrets, and building the automaton costs more than searching those
 * few: below SMALL_WORK the secrets are searched one by one, whose worst case is bounded by that product. Both ways
 * hide the same characters under the same marks.
 */

export interface SecretMatcher {
  /** Whether any secret occurs in the text. */
  occursIn(text: string): boolean;
  /** The text with every character of every occurrence replaced: each run of overlapping ones by `mark`, once. */
  replaced(text: string, mark: string): string;
}

/** Text length times the secrets' total length under which searching each secret in turn is the cheaper way. */
const SMALL_WORK = 1 << 16;

/** Matches nothing: a call without secrets to look for. */
const NONE: SecretMatcher = { occursIn: () => false, replaced: (text) => text };

/**
 * A matcher of `secrets` (non-empty strings). A match costs the text's length (its automaton, built at the first
 * long text, costs the secrets' total length), or at most SMALL_WORK comparisons for a short text.
 * Code units are compared, as `String.prototype.includes` does.
 */
export function secretMatcher(secrets: readonly string[]): SecretMatcher {
  if (secrets.length === 0) return NONE;
  let total = 0;
  for (const secret of secrets) total += secret.length;
  let automaton: Automaton | undefined;
  const small = (text: string): boolean => text.length * total <= SMALL_WORK;
  return {
    occursIn(text) {
      if (small(text)) return secrets.some((secret) => text.includes(secret));
      return (automaton ??= new Automaton(secrets)).occursIn(text);
    },
    replaced(text, mark) {
      if (small(text)) {
        // Most strings hold no secret: they are told so without building anything.
        if (!secrets.some((secret) => text.includes(secret))) return text;
        const cover = new Cover(text, mark);
        searchEach(text, secrets, cover);
        return cover.finish();
      }
      const cover = new Cover(text, mark);
      (automaton ??= new Automaton(secrets)).search(text, cover);
      return cover.finish();
    },
  };
}

/**
 * The marks over a text, fed each place a secret ends, in order, with the longest secret ending there: a secret that
 * overlaps the run being covered grows it, one that starts at or after its end starts a new run (so back-to-back
 * secrets stay apart).
 */
class Cover {
  readonly #text: string;
  readonly #mark: string;
  #out = '';
  /** Where the text not yet written starts, and the run being covered (start, end exclusive). */
  #written = 0;
  #runStart = -1;
  #runEnd = -1;

  constructor(text: string, mark: string) {
    this.#text = text;
    this.#mark = mark;
  }

  add(start: number, end: number): void {
    if (this.#runStart !== -1 && start < this.#runEnd) {
      // A shorter secret ending here lies inside the longest one, already counted; one starting before the run
      // started reaches back at most to what was written.
      if (start < this.#runStart) this.#runStart = Math.max(start, this.#written);
      this.#runEnd = end;
      return;
    }
    if (this.#runStart !== -1) {
      this.#out += this.#text.slice(this.#written, this.#runStart) + this.#mark;
      this.#written = this.#runEnd;
    }
    this.#runStart = start;
    this.#runEnd = end;
  }

  finish(): string {
    if (this.#runStart === -1) return this.#text;
    return this.#out + this.#text.slice(this.#written, this.#runStart) + this.#mark + this.#text.slice(this.#runEnd);
  }
}

/** Every occurrence of each secret (overlapping ones too), fed to `cover` as the automaton would: by where it ends. */
function searchEach(text: string, secrets: readonly string[], cover: Cover): void {
  const found: Array<[start: number, end: number]> = [];
  for (const secret of secrets) {
    for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) found.push([at, at + secret.length]);
  }
  if (found.length === 0) return;
  // By end, and the longest (earliest start) first of those that end together: the others lie inside it.
  found.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  let lastEnd = -1;
  for (const [start, end] of found) {
    if (end === lastEnd) continue;
    lastEnd = end;
    cover.add(start, end);
  }
}

/** The Aho–Corasick automaton of the secrets: one pass over a text, whatever their count and length. */
class Automaton {
  /** The trie: state 0 is the root; `next[state]` its edges by code unit. */
  readonly #next: Map<number, number>[] = [new Map()];
  /** Length of the longest secret that ends at this state (itself or one of its suffixes); 0 when none. */
  readonly #longest: number[] = [0];
  readonly #fail: Int32Array;

  constructor(secrets: readonly string[]) {
    const next = this.#next;
    const longest = this.#longest;
    for (const secret of secrets) {
      let state = 0;
      for (let at = 0; at < secret.length; at += 1) {
        const unit = secret.charCodeAt(at);
        let to = (next[state] as Map<number, number>).get(unit);
        if (to === undefined) {
          to = next.length;
          next.push(new Map());
          longest.push(0);
          (next[state] as Map<number, number>).set(unit, to);
        }
        state = to;
      }
      longest[state] = secret.length;
    }
    // Failure links, breadth first, so that a state's link is done before its children's.
    const fail = new Int32Array(next.length);
    const queue: number[] = [...(next[0] as Map<number, number>).values()];
    for (let head = 0; head < queue.length; head += 1) {
      const state = queue[head] as number;
      // The state's string is longer than any suffix's: its own secret, if any, is the longest ending here.
      if (longest[state] === 0) longest[state] = longest[fail[state] as number] as number;
      for (const [unit, child] of next[state] as Map<number, number>) {
        let link = fail[state] as number;
        while (link !== 0 && !(next[link] as Map<number, number>).has(unit)) link = fail[link] as number;
        const to = (next[link] as Map<number, number>).get(unit);
        fail[child] = to !== undefined && to !== child ? to : 0;
        queue.push(child);
      }
    }
    this.#fail = fail;
  }

  occursIn(text: string): boolean {
    let state = 0;
    for (let at = 0; at < text.length; at += 1) {
      state = this.#step(state, text.charCodeAt(at));
      if ((this.#longest[state] as number) > 0) return true;
    }
    return false;
  }

  search(text: string, cover: Cover): void {
    let state = 0;
    for (let at = 0; at < text.length; at += 1) {
      state = this.#step(state, text.charCodeAt(at));
      const length = this.#longest[state] as number;
      if (length > 0) cover.add(at + 1 - length, at + 1);
    }
  }

  #step(state: number, unit: number): number {
    let here = state;
    for (;;) {
      const to = (this.#next[here] as Map<number, number>).get(unit);
      if (to !== undefined) return to;
      if (here === 0) return 0;
      here = this.#fail[here] as number;
    }
  }
}
