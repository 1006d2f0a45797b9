/**
 * Run data as formatted, collapsible JSON: every object and array is a <details> the user can fold (open at
 * first, so that what arrived is in view), values are coloured by type, and binary entries are shown by name,
 * type and size, never by their bytes.
 */
import type { BinaryDto, ItemDto } from '../protocol.js';
import { h } from './dom.js';

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
  const summary = h('summary', {}, keyText, h('span', { class: 'json-punct' }, `${open} ${entries.length} ${Array.isArray(value) ? (entries.length === 1 ? 'item' : 'items') : (entries.length === 1 ? 'key' : 'keys')} ${close}`));
  return h('li', {}, h('details', { open: depth < OPEN_DEPTH }, summary, h('ul', { class: 'json' }, ...entries.map(([inner, innerValue]) => node(inner, innerValue, depth + 1)))));
}

/** A JSON value as a foldable tree. */
export function jsonView(value: unknown, label: string): HTMLElement {
  return h('ul', { class: 'json json-root', 'aria-label': label }, node(undefined, value, 0));
}

function binaryLine(name: string, binary: BinaryDto): HTMLElement {
  const size = binary.fileSize ?? (binary.bytes === undefined ? 'size unknown' : `${binary.bytes} B`);
  return h('li', {}, h('span', { class: 'json-key' }, `${name}: `), h('span', { class: 'binary' }, [binary.fileName ?? '(no file name)', binary.mimeType, size].join(' · ')));
}

/** Items of a pane: each item's JSON, then its binary entries as name, type and size. */
export function itemsView(items: ItemDto[], label: string): HTMLElement {
  if (items.length === 0) return h('p', { class: 'empty' }, 'No items.');
  return h('ol', { class: 'items', 'aria-label': label }, ...items.map((item, index) => h('li', {},
    h('p', { class: 'item-title' }, `Item ${index + 1}`),
    jsonView(item.json, `Item ${index + 1} JSON`),
    item.binary === undefined ? null : h('div', { class: 'binaries' }, h('p', { class: 'item-title' }, 'Binary'),
      h('ul', { class: 'json' }, ...Object.entries(item.binary).map(([name, binary]) => binaryLine(name, binary)))))));
}
