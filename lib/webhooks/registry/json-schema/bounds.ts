/**
 * What refuses a schema before ajv compiles it: bounds on its text (size, nesting, subschemas side by side, its
 * patterns' programs), which keep compiling it short, and the measure of what one value can cost it (measure.ts).
 * Each answer is why, in words for the workflow's author, or undefined.
 */
import type { SchemaNode } from './graph.js';
import { measureCost, MAX_APPLICATIONS_PER_VALUE } from './measure.js';
import { programEstimate } from './pattern-size.js';

/** A schema's JSON text may hold at most this many characters. */
export const MAX_SCHEMA_SIZE = 32 * 1024;
/** A schema may nest objects and arrays at most this deep. */
export const MAX_SCHEMA_DEPTH = 32;
/** Subschemas one schema object may hold side by side (properties, allOf entries…): ajv nests its code that deep. */
export const MAX_SIDE_BY_SIDE = 1000;
/** RE2 instructions all of a schema's patterns may compile to together: about 60 ms of compiling. */
export const MAX_SCHEMA_PROGRAM = 10_000;

/** Why a schema's JSON text is too large to compile, or undefined. */
export function oversized(text: string): string | undefined {
  if (text.length > MAX_SCHEMA_SIZE) return `is larger than ${MAX_SCHEMA_SIZE} characters of JSON`;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      deepest = Math.max(deepest, ++depth);
    } else if (char === '}' || char === ']') {
      depth--;
    }
  }
  return deepest > MAX_SCHEMA_DEPTH ? `nests deeper than ${MAX_SCHEMA_DEPTH} levels` : undefined;
}

/** Why the schema's cost per value has no useful bound, or undefined. */
export function unbounded(nodes: readonly SchemaNode[]): string | undefined {
  const finding = measureCost(nodes);
  if (finding === undefined) return undefined;
  if (finding.kind === 'cycle') return `refers back to the same value without reaching into it (${finding.path.join(' → ')}), so checking a value would never end`;
  return `can apply ${finding.pointer} and its subschemas ${Math.round(finding.applications)} times to one value ${finding.depth} levels deep (at most ${MAX_APPLICATIONS_PER_VALUE}): it recurses through more than one path per level (anyOf, oneOf, allOf, if, or several $refs). Give each level one path`;
}

/** Why one schema object holds too many subschemas side by side to be compiled, or undefined. */
export function crowded(nodes: readonly SchemaNode[]): string | undefined {
  const node = nodes.find((candidate) => candidate.edges.filter((edge) => edge.applies.kind !== 'stored' && edge.reference !== true).length > MAX_SIDE_BY_SIDE);
  return node === undefined ? undefined : `holds more than ${MAX_SIDE_BY_SIDE} subschemas side by side at ${node.pointer}: split them across $defs`;
}

/** Why the schema's patterns together would take too long to compile, or undefined. */
export function wordy(nodes: readonly SchemaNode[]): string | undefined {
  let total = 0;
  for (const { schema } of nodes) {
    if (typeof schema !== 'object' || schema === null) continue;
    const keywords = schema as Record<string, unknown>;
    if (typeof keywords.pattern === 'string') total += programEstimate(keywords.pattern);
    const patterned = keywords.patternProperties;
    if (typeof patterned === 'object' && patterned !== null) for (const pattern of Object.keys(patterned)) total += programEstimate(pattern);
  }
  return total > MAX_SCHEMA_PROGRAM ? `has patterns that together compile to about ${total} instructions (at most ${MAX_SCHEMA_PROGRAM}): bound their repeats, or check lengths with maxLength` : undefined;
}
