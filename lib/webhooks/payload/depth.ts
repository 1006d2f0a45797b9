/**
 * How deep a parsed body nests, checked without recursion: a body nested thousands of levels deep parses fine
 * (V8's JSON.parse does not recurse), but then overflows the stack of whatever walks it recursively afterwards
 * (JSON.stringify of the answer, a queued job, the workflow's own code), so it is refused here, as a 400.
 */
import { WebhookError } from '../../core/errors.js';

export function tooDeep(limit: number): WebhookError {
  return new WebhookError('BODY_TOO_DEEP', `The request body nests deeper than the limit of ${limit} levels (JSON arrays and objects, XML elements).`, {
    hint: 'Send a flatter body, or raise the middleware option limits.bodyDepth.',
  });
}

/** Arrays and plain objects: what JSON, XML and form parsers build (a host parser's Buffer or class instance is a leaf). */
function isNode(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Whether `value` holds arrays or objects more than `limit` levels deep (the value itself is level 1). Depth-first
 * with explicit stacks (which hold the siblings still to visit along one path, never more than the body has), and
 * it stops at the first node past the limit: a body nested thousands deep costs a walk of `limit` levels.
 */
export function nestsDeeper(value: unknown, limit: number): boolean {
  if (!isNode(value)) return false;
  // Two stacks of plain values rather than one of pairs: nothing is allocated per node.
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop() as number;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index += 1) {
        const child = node[index];
        if (!isNode(child)) continue;
        if (depth >= limit) return true;
        nodes.push(child);
        depths.push(depth + 1);
      }
    } else {
      for (const key in node) {
        const child = node[key];
        if (!isNode(child)) continue;
        if (depth >= limit) return true;
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
