/**
 * Finds the node descriptions in what node authors ship, for `workflow-webhooks lint` and the real-node corpus:
 * a JSON file, a JS or TS module that exports a node class by name (the platform's convention,
 * `exports.Set = Set`) or a description, a versioned node (`nodeVersions`: one description per version), or a
 * whole package directory (every node its package.json lists under `n8n.nodes`). It loads, it never validates.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isObject } from './rules/context.js';

/** One description to validate: a node's, one version's of a versioned node, or a bare property list. */
export interface LoadedNode {
  /** `file`, or `file#Class` for a node class, `file#Class@2,2.1` for a version of a versioned node. */
  label: string;
  file: string;
  /** The description with the node's `methods` beside its properties, or a property list. */
  input: unknown;
}

export interface LoadProblem { file: string; message: string }

export interface LoadResult { nodes: LoadedNode[]; problems: LoadProblem[] }

const reason = (error: unknown): string => (error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error));

/** Only classes are constructed: `new` on an exported helper function would run it. */
function isClass(value: unknown): value is new () => unknown {
  if (typeof value !== 'function') return false;
  if (/^class[\s{]/.test(Function.prototype.toString.call(value))) return true;
  // A class compiled to ES5 is a function with methods on its prototype.
  const prototype = (value as { prototype?: unknown }).prototype;
  return isObject(prototype) && Object.getOwnPropertyNames(prototype).length > 1;
}

/** A description as the validator reads it: methods live on the node object, not in its description. */
function withMethods(description: Record<string, unknown>, node: Record<string, unknown>): Record<string, unknown> {
  return node.methods === undefined || description.methods !== undefined ? description : { ...description, methods: node.methods };
}

/** JSON of a description that tells functions and RegExps apart, so equal versions are linted once. */
function fingerprint(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'function' ? `fn:${String(item)}` : item instanceof RegExp ? `re:${item.source}` : item));
  } catch {
    // A cyclic description has no JSON: it stays apart from every other one (the validator reports the cycle).
    return String(Math.random());
  }
}

function versionsOf(description: Record<string, unknown>, key: string): string {
  const { version } = description;
  return Array.isArray(version) ? version.join(',') : typeof version === 'number' ? String(version) : key;
}

/** The descriptions of one instance: one, or one per distinct version of a versioned node. */
function descriptionsOf(instance: unknown, file: string, name: string): LoadedNode[] {
  if (!isObject(instance)) return [];
  if (isObject(instance.nodeVersions)) {
    const seen = new Map<string, LoadedNode>();
    for (const [key, version] of Object.entries(instance.nodeVersions)) {
      if (!isObject(version) || !isObject(version.description)) continue;
      const input = withMethods(version.description, version);
      const print = fingerprint(input);
      if (!seen.has(print)) seen.set(print, { label: `${file}#${name}@${versionsOf(version.description, key)}`, file, input });
    }
    return [...seen.values()];
  }
  if (isObject(instance.description) && Array.isArray(instance.description.properties)) {
    return [{ label: `${file}#${name}`, file, input: withMethods(instance.description, instance) }];
  }
  return [];
}

/** The exports of a module, a CommonJS module's `module.exports` members included, each once. */
function exportsOf(module: Record<string, unknown>): [string, unknown][] {
  const entries: [string, unknown][] = [];
  const seen = new Set<unknown>();
  const add = (name: string, value: unknown): void => {
    if (seen.has(value)) return;
    seen.add(value);
    entries.push([name, value]);
  };
  for (const [name, value] of Object.entries(module)) if (name !== 'default') add(name, value);
  const fallback = module.default;
  if (isObject(fallback) && !Array.isArray(fallback.properties)) for (const [name, value] of Object.entries(fallback)) add(name, value);
  else if (fallback !== undefined) add('default', fallback);
  return entries;
}

/** Node classes first; else a default or `description` export that is a description or a property list. */
function nodesOfModule(module: Record<string, unknown>, file: string): LoadResult {
  const nodes: LoadedNode[] = [];
  const problems: LoadProblem[] = [];
  const entries = exportsOf(module);
  for (const [name, value] of entries) {
    if (!isClass(value)) continue;
    try {
      nodes.push(...descriptionsOf(new value(), file, name));
    } catch (error) {
      problems.push({ file, message: `cannot construct the exported class ${name}: ${reason(error)}` });
    }
  }
  if (nodes.length > 0) return { nodes, problems };
  for (const [name, value] of entries) {
    if (name !== 'default' && name !== 'description') continue;
    if (Array.isArray(value) || (isObject(value) && Array.isArray(value.properties))) nodes.push({ label: file, file, input: value });
    else if (isObject(value) && isObject(value.description)) nodes.push(...descriptionsOf(value, file, name));
  }
  if (nodes.length === 0 && problems.length === 0) {
    problems.push({ file, message: 'exports no node class (a class whose instances have a description or nodeVersions), description or property list' });
  }
  return { nodes, problems };
}

type TsImport = (specifier: string, parent: string) => Promise<Record<string, unknown>>;
let typeScriptImport: Promise<TsImport | undefined> | undefined;

/** The ESM entry of tsx's API: `require.resolve` would give its CommonJS build, which cannot load modules here. */
function tsxEsmApi(manifest: string): string | undefined {
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, unknown> };
  const entry = exports?.['./esm/api'];
  const target = isObject(entry) && isObject(entry.import) ? entry.import.default : isObject(entry) ? entry.import : undefined;
  return typeof target === 'string' ? join(manifest, '..', target) : undefined;
}

/** tsx's `tsImport`, from where the node lives, the working directory, or this package; undefined when none has it. */
function findTypeScriptImport(from: string): Promise<TsImport | undefined> {
  typeScriptImport ??= (async () => {
    for (const base of [join(from, 'noop.js'), join(process.cwd(), 'noop.js'), import.meta.url]) {
      try {
        const api = tsxEsmApi(createRequire(base).resolve('tsx/package.json'));
        if (api === undefined) continue;
        const { tsImport } = (await import(pathToFileURL(api).href)) as { tsImport?: TsImport };
        if (typeof tsImport === 'function') return tsImport;
      } catch {
        // Not resolvable from there; try the next place.
      }
    }
    return undefined;
  })();
  return typeScriptImport;
}

/** Whether this process was started with a TypeScript loader (tsx, ts-node) or Node's own type stripping. */
function typeScriptActive(): boolean {
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  return /tsx|ts-node|strip-types|transform-types/.test(flags) || (process.features as { typescript?: unknown }).typescript !== undefined;
}

async function importModule(path: string): Promise<Record<string, unknown>> {
  const typeScript = /\.[cm]?ts$/.test(path);
  const tsImport = typeScript && !typeScriptActive() ? await findTypeScriptImport(resolve(path, '..')) : undefined;
  if (tsImport !== undefined) return tsImport(pathToFileURL(path).href, import.meta.url);
  try {
    return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    if (typeScript && (error as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new Error('a .ts node source needs a TypeScript loader: install tsx where the node lives (it is then used), run `node --import tsx`, or lint the compiled .js');
    }
    throw error;
  }
}

/** Loads one file: .json, or a module (.js, .cjs, .mjs, .ts, …). */
export async function loadFile(file: string): Promise<LoadResult> {
  const path = resolve(file);
  try {
    if (extname(path) === '.json') return { nodes: [{ label: file, file, input: JSON.parse(readFileSync(path, 'utf8')) as unknown }], problems: [] };
    return nodesOfModule(await importModule(path), file);
  } catch (error) {
    return { nodes: [], problems: [{ file, message: `cannot load it: ${reason(error)}` }] };
  }
}

/** Loads every node a package's package.json lists under `n8n.nodes`. */
export async function loadPackage(directory: string): Promise<LoadResult> {
  const manifest = join(directory, 'package.json');
  let nodeFiles: unknown;
  try {
    nodeFiles = (JSON.parse(readFileSync(manifest, 'utf8')) as { n8n?: { nodes?: unknown } }).n8n?.nodes;
  } catch (error) {
    return { nodes: [], problems: [{ file: directory, message: `not a node package: ${reason(error)}` }] };
  }
  if (!Array.isArray(nodeFiles) || nodeFiles.length === 0) {
    return { nodes: [], problems: [{ file: directory, message: 'not a node package: its package.json lists no nodes under n8n.nodes' }] };
  }
  const result: LoadResult = { nodes: [], problems: [] };
  for (const entry of nodeFiles) {
    if (typeof entry !== 'string') continue;
    const path = join(directory, entry);
    if (!existsSync(path)) {
      result.problems.push({ file: path, message: 'listed under n8n.nodes but missing (is the package built?)' });
      continue;
    }
    const loaded = await loadFile(path);
    result.nodes.push(...loaded.nodes);
    result.problems.push(...loaded.problems);
  }
  return result;
}

/** A file or a package directory. */
export async function loadTarget(target: string): Promise<LoadResult> {
  let directory = false;
  try {
    directory = statSync(target).isDirectory();
  } catch (error) {
    return { nodes: [], problems: [{ file: target, message: `cannot read it: ${reason(error)}` }] };
  }
  return directory ? loadPackage(target) : loadFile(target);
}
