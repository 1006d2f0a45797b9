/**
 * A copy of a value that history could not keep as it is, made without recursion: JSON data cut MAX_KEPT_DEPTH
 * levels deep. Redacting and writing JSON both recurse, and a value nested thousands of levels deep (a body under a
 * host's raised `limits.bodyDepth`, a workflow's answer) overflows the stack there; a workflow's answer may also hold
 * what JSON cannot (a cycle, a BigInt). The copy is bounded by the value's size, and the redaction takes it safely.
 */

/** Levels of arrays and objects a cut copy keeps; what lies deeper is replaced by DEEPER. */
export const MAX_KEPT_DEPTH = 512;

/** What stands where a deeper array or object was. */
export const DEEPER = `[nested deeper than ${MAX_KEPT_DEPTH} levels]`;
/** What stands where an object already copied appears again (a cycle, or one object held twice). */
export const REPEATED = '[repeated object]';

interface Slot {
  from: unknown;
  into: Record<string, unknown> | unknown[];
  key: string | number;
  depth: number;
}

function put(into: Slot['into'], key: string | number, value: unknown): void {
  // Defined rather than assigned: a key such as `__proto__` stays a plain key, and its place in the order is kept.
  Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The value as JSON data at most MAX_KEPT_DEPTH levels deep (the value itself is level 1). */
export function cutCopy(root: unknown): unknown {
  const seen = new Set<object>();
  const holder: unknown[] = [undefined];
  const slots: Slot[] = [{ from: root, into: holder, key: 0, depth: 1 }];
  for (let slot = slots.pop(); slot !== undefined; slot = slots.pop()) {
    const { from, into, key, depth } = slot;
    if (typeof from === 'bigint') put(into, key, String(from));
    else if (typeof from !== 'object' || from === null) put(into, key, from);
    else if (depth > MAX_KEPT_DEPTH) put(into, key, DEEPER);
    else if (seen.has(from)) put(into, key, REPEATED);
    else {
      seen.add(from);
      const entries = Array.isArray(from) ? from.map((entry, index) => [index, entry] as const) : Object.entries(from);
      const copy: Slot['into'] = Array.isArray(from) ? new Array<unknown>(from.length).fill(null) : {};
      // Every key is placed now, in order, and filled when its slot is taken: the first first, so that of an object
      // held twice, the first place holds the copy.
      for (const [name] of entries) put(copy, name, null);
      for (let at = entries.length - 1; at >= 0; at -= 1) {
        const [name, entry] = entries[at] as readonly [string | number, unknown];
        slots.push({ from: entry, into: copy, key: name, depth: depth + 1 });
      }
      put(into, key, copy);
    }
  }
  return holder[0];
}
