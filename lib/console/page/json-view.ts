/**
 * Run data as formatted, collapsible JSON: every object and array is a <details> the user can fold (open at
 * first, so that what arrived is in view), values are coloured by type, and binary entries are shown by name,
 * type and size with a link that downloads the bytes while the console keeps them, never by their bytes. Only the
 * files a test call brought are kept (up to a size); an output's files never are, and each label says which rule applied.
 */
import type { BinaryDto, ItemDto } from '../protocol.js';
import { h, screenReaderText } from './dom.js';

const OPEN_DEPTH = 6;

function scalar(value: unknown): HTMLElement {
  if (typeof value === 'string') return h('span', { class: 'json-string' }, JSON.stringify(value));
  if (typeof value === 'number') return h('span', { class: 'json-number' }, String(value));
  if (typeof value === 'boolean') return h('span', { class: 'json-boolean' }, String(value));
  return h('span', { class: 'json-null' }, 'null');
}

function node(key: string | undefined, value: unknown, depth: number): HTMLElement {
  const keyText = key === undefined ? null : h('span', { class: 'json-key' }, `${key}: `);
  if (typeof value !== 'object' || value === null) return h('li', {}, keyText, scalar(value));
  const entries = Array.isArray(value) ? value.map((inner, index) => [String(index), inner] as const) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return h('li', {}, keyText, h('span', { class: 'json-punct' }, `${open}${close}`));
  const noun = Array.isArray(value) ? (entries.length === 1 ? 'item' : 'items') : (entries.length === 1 ? 'key' : 'keys');
  const summary = h('summary', {}, keyText, h('span', { class: 'json-punct' }, `${open} ${entries.length} ${noun} ${close}`));
  return h('li', {}, h('details', { open: depth < OPEN_DEPTH }, summary, h('ul', { class: 'json' }, ...entries.map(([inner, innerValue]) => node(inner, innerValue, depth + 1)))));
}

/** A JSON value as a foldable tree. */
export function jsonView(value: unknown, label: string): HTMLElement {
  return h('ul', { class: 'json json-root', 'aria-label': label }, node(undefined, value, 0));
}

function sizeOf(binary: BinaryDto): string {
  if (binary.fileSize !== undefined) return binary.fileSize;
  return binary.bytes === undefined ? 'size unknown' : `${binary.bytes} B`;
}

/** Whose items a view shows: the call's (trigger) or the workflow's (output). */
export type ItemsOf = 'trigger' | 'output';

const NOT_KEPT: Record<ItemsOf, string> = {
  trigger: 'not kept: larger than the console keeps',
  output: 'not kept: the console keeps the files a test call brought, never those of the output',
};

/** `base` is the console's mount path: a binary's download address is relative to it. */
function binaryLine(name: string, binary: BinaryDto, base: string, of: ItemsOf): HTMLElement {
  const fileName = binary.fileName ?? '(no file name)';
  const download = binary.download === undefined
    ? h('span', { class: 'not-kept' }, NOT_KEPT[of])
    : h('a', { class: 'download', href: `${base}/${binary.download}`, download: binary.fileName ?? name }, 'Download', screenReaderText(` ${fileName}`));
  return h('li', { class: 'binary-entry' }, h('span', { class: 'json-key' }, `${name}: `),
    h('span', { class: 'binary' }, [fileName, binary.mimeType, sizeOf(binary)].join(' · ')), ' ', download);
}

/** Items of a pane: each item's JSON, then its binary entries. */
export function itemsView(items: ItemDto[], label: string, base: string, of: ItemsOf): HTMLElement {
  if (items.length === 0) return h('p', { class: 'empty' }, 'No items.');
  return h('ol', { class: 'items', 'aria-label': label }, ...items.map((item, index) => h('li', {},
    h('p', { class: 'item-title' }, `Item ${index + 1}`),
    jsonView(item.json, `Item ${index + 1} JSON`),
    item.binary === undefined ? null : h('div', { class: 'binaries' }, h('p', { class: 'item-title' }, 'Binary'),
      h('ul', { class: 'json' }, ...Object.entries(item.binary).map(([name, binary]) => binaryLine(name, binary, base, of)))))));
}
