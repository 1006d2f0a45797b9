/**
 * `npm run bench -- parse`: what parsing one JSON or XML body costs the event loop, per MiB and by shape, with the
 * library's own parsers (the same code a call runs), and what a worker thread would still leave on the loop: copying
 * the parsed result back (v8's structured clone, as postMessage does). The figures behind `limits.jsonSize` and
 * `limits.xmlSize` (docs/limits.md).
 */
import { deserialize, serialize } from 'node:v8';
import { parseJsonBody } from '../lib/webhooks/payload/json.js';
import { parseXmlBody } from '../lib/webhooks/payload/xml.js';

const MIB = 1024 * 1024;

/** Repeats `piece(i)` until the text has `bytes` bytes, inside `open` … `close`. */
function build(bytes: number, open: string, piece: (index: number) => string, close: string): Buffer {
  const parts = [open];
  let size = open.length + close.length;
  for (let index = 0; size < bytes; index += 1) {
    const next = piece(index);
    parts.push(next);
    size += next.length;
  }
  parts.push(close);
  return Buffer.from(parts.join(''));
}

const SHAPES: { kind: 'json' | 'xml'; shape: string; make: (bytes: number) => Buffer }[] = [
  { kind: 'json', shape: 'orders (objects of five fields)', make: (bytes) => build(bytes, '[', (i) => `{"id":${i},"status":"paid","customer":"Ann ${i}","total":12.5,"note":"thanks"},`, '{}]') },
  { kind: 'json', shape: 'one object of short keys', make: (bytes) => build(bytes, '{', (i) => `"k${i}":1,`, '"end":1}') },
  { kind: 'json', shape: 'an array of empty objects', make: (bytes) => build(bytes, '[', () => '{},', '{}]') },
  { kind: 'xml', shape: 'orders (elements with attributes)', make: (bytes) => build(bytes, '<orders>', (i) => `<order id="${i}" status="paid"><customer>Ann ${i}</customer><total currency="EUR">12.50</total><note>thanks</note></order>`, '</orders>') },
  { kind: 'xml', shape: 'many small elements', make: (bytes) => build(bytes, '<r>', (i) => `<e${i % 50}>v</e${i % 50}>`, '</r>') },
  { kind: 'xml', shape: 'one element of many attributes', make: (bytes) => build(bytes, '<r', (i) => ` a${i}="x"`, '/>') },
];

function timed<T>(work: () => T): [T, number] {
  const started = performance.now();
  const value = work();
  return [value, performance.now() - started];
}

/** The median of `rounds` runs of `work`, in ms. */
function median(rounds: number, work: () => unknown): number {
  const times = Array.from({ length: rounds }, () => timed(work)[1]).sort((a, b) => a - b);
  return times[Math.floor(rounds / 2)] as number;
}

export function benchParseCost(sizeMib = Number(process.env.BENCH_PARSE_MIB ?? 1), rounds = Number(process.env.BENCH_ROUNDS ?? 3)): string {
  const rows = ["| body | shape | parse, ms per MiB | copying a worker thread's result back onto the loop, ms per MiB |", '|---|---|---|---|'];
  for (const { kind, shape, make } of SHAPES) {
    const bytes = make(sizeMib * MIB);
    const mib = bytes.length / MIB;
    const parse = (): unknown => (kind === 'json' ? parseJsonBody(bytes, undefined, 64) : parseXmlBody(bytes, undefined, 64));
    const parsed = parse();
    const parseMs = median(rounds, parse);
    // The worker serialises; the event loop still deserialises what it receives.
    const copied = serialize(parsed);
    const copyMs = median(rounds, () => deserialize(copied));
    rows.push(`| ${kind.toUpperCase()} | ${shape} | ${Math.round(parseMs / mib)} | ${Math.round(copyMs / mib)} |`);
  }
  return rows.join('\n');
}
