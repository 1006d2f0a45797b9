import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folders of lib/webhooks read as the request path: a stage may use the stages before it, never one after it,
 * so a reader can follow a call from the first folder to the last.
 */
const STAGES = ['registry', 'request', 'guards', 'rate-limit', 'body', 'uploads', 'payload', 'validate', 'run', 'response'];
/** The wiring: it may use every stage. (The contracts every stage shares are lib/core/, below them all.) */
const WIRING = ['middleware.ts', 'served-call.ts', 'call-wiring.ts', 'options.ts'];
/**
 * Beside the request path, not on it (describe: the OpenAPI document): it reads the registry and the shared
 * contracts only, and only the wiring uses it, so no stage of a call depends on it.
 */
const BESIDE = ['describe'];
/**
 * The address kinds the wiring composes beside production and test (waiting: the resume addresses). They rank with
 * the wiring: they may use every stage, and no stage may use them.
 */
const ADDRESSES = ['waiting', 'history'];
const MAX_LINES = 300;

/**
 * Rooms depend one way (DESIGN §6): the layers of lib/, bottom up. A folder may import its own layer or a lower
 * one, never a higher one; lib/definitions/ stands alone (it imports nothing of ours), and the core (types, the
 * error catalogue, events, logger, option checks, the wait contracts) imports nothing but a type of it.
 */
const LAYERS = ['standalone', 'core', 'stages', 'addresses', 'entries'] as const;
type Layer = (typeof LAYERS)[number];
/**
 * The layer of every folder of lib/ ('.' is lib/ itself, the entry file). A folder and its sub-folders of the same
 * layer are one room (lib/console/ and lib/console/server/); the stage folders of lib/webhooks/ are rooms of their
 * own, as their layer is not that of lib/webhooks/ (the middleware, which composes the addresses).
 */
const LAYER_OF: Record<string, Layer> = {
  definitions: 'standalone', 'definitions/rules': 'standalone', 'definitions/values': 'standalone',
  core: 'core',
  'webhooks/registry': 'stages', 'webhooks/request': 'stages', 'webhooks/guards': 'stages', 'webhooks/rate-limit': 'stages', 'webhooks/body': 'stages',
  'webhooks/uploads': 'stages', 'webhooks/payload': 'stages', 'webhooks/validate': 'stages', 'webhooks/run': 'stages', 'webhooks/response': 'stages',
  'webhooks/describe': 'stages', 'webhooks/registry/shared': 'stages', 'webhooks/registry/json-schema': 'stages',
  webhooks: 'addresses', 'webhooks/waiting': 'addresses', 'webhooks/history': 'addresses',
  redis: 'entries', postgres: 'entries', queue: 'entries', 'queue/binary': 'entries', 'queue/store': 'entries', 'queue/postgres': 'entries', telemetry: 'entries', fastify: 'entries',
  console: 'entries', 'console/calls': 'entries', 'console/listen': 'entries', 'console/page': 'entries',
  'console/page/form': 'entries', 'console/preview': 'entries', 'console/server': 'entries',
  '.': 'entries',
};

const lib = resolve(dirname(fileURLToPath(import.meta.url)), '../lib');
const webhooks = join(lib, 'webhooks');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * A file's place in the request path: 0.. the stages, Infinity the wiring. A folder beside the path ranks with the
 * registry, the last thing it may use.
 */
function rankOf(file: string): number {
  const [first, second] = relative(webhooks, file).split(sep);
  if (second === undefined || ADDRESSES.includes(first as string)) return Infinity;
  return BESIDE.includes(first as string) ? STAGES.indexOf('registry') : STAGES.indexOf(first as string);
}

/** The folder beside the request path a file is in, if any. */
function besideFolderOf(file: string): string | undefined {
  const [first, second] = relative(webhooks, file).split(sep);
  return second !== undefined && BESIDE.includes(first as string) ? first : undefined;
}

function relativeImports(source: string): string[] {
  return [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1] as string);
}

/** Every folder of lib/ that holds something, relative to lib/ ('.' for lib/ itself). */
function folders(folder = lib): string[] {
  const below = readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isDirectory())
    .flatMap((entry) => folders(join(folder, entry.name)));
  return [relative(lib, folder) || '.', ...below];
}

/** The room of a folder: the top of the chain of folders above it that share its layer (never lib/ itself). */
function roomOf(folder: string): string {
  const parent = dirname(folder);
  return parent !== '.' && LAYER_OF[parent] === LAYER_OF[folder] ? roomOf(parent) : folder;
}

/** Imports between folders of lib/: from folder → to folder → the first file import that makes the edge. */
function folderImports(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(lib)) {
    const from = relative(lib, dirname(file)) || '.';
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(lib + sep)) continue;
      const to = relative(lib, dirname(target)) || '.';
      if (to === from) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, `${relative(lib, file)} imports ${relative(lib, target)}`);
      edges.set(from, out);
    }
  }
  return edges;
}

/** Each circle between rooms, as the rooms it goes round and the imports that close it. */
function circles(edges: Map<string, Map<string, string>>): string[] {
  const rooms = new Map<string, Map<string, string>>();
  for (const [from, out] of edges) {
    for (const [to, why] of out) {
      if (roomOf(from) === roomOf(to)) continue;
      const next = rooms.get(roomOf(from)) ?? new Map<string, string>();
      if (!next.has(roomOf(to))) next.set(roomOf(to), why);
      rooms.set(roomOf(from), next);
    }
  }
  const found = new Set<string>();
  const done = new Set<string>();
  const walk = (room: string, path: string[]): void => {
    const at = path.indexOf(room);
    if (at >= 0) {
      const circle = [...path.slice(at), room];
      const imports = circle.slice(1).map((to, i) => rooms.get(circle[i] as string)?.get(to));
      found.add(`${circle.join(' → ')} (${imports.join('; ')})`);
      return;
    }
    if (done.has(room)) return;
    for (const to of rooms.get(room)?.keys() ?? []) walk(to, [...path, room]);
    done.add(room);
  };
  for (const room of rooms.keys()) walk(room, []);
  return [...found];
}

describe('the layout of lib/', () => {
  const files = sourceFiles(lib);

  it('keeps every source file under 300 lines', () => {
    const long = files.map((file) => [relative(lib, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    expect(long).to.deep.equal([]);
  });

  it('opens every source file with a comment saying what it is for', () => {
    const silent = files.filter((file) => !/^(\/\*\*|\/\*|\/\/|#!)/.test(readFileSync(file, 'utf8'))).map((file) => relative(lib, file));
    expect(silent).to.deep.equal([]);
  });

  it('holds lib/webhooks in one folder per stage of the request path, plus the wiring, the waiting addresses and what is beside the path', () => {
    const top = readdirSync(webhooks).sort();
    expect(top).to.deep.equal([...STAGES, ...WIRING, ...ADDRESSES, ...BESIDE].sort());
  });

  it('lets only the wiring use a folder beside the request path, and that folder only the registry and the core', () => {
    const crossing: string[] = [];
    for (const file of sourceFiles(webhooks)) {
      const own = besideFolderOf(file);
      for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
        if (!target.startsWith(webhooks + sep)) continue;
        const used = besideFolderOf(target);
        const byStage = used !== undefined && used !== own && rankOf(file) !== Infinity;
        const usesStage = own !== undefined && used === undefined && rankOf(target) > STAGES.indexOf('registry');
        if (byStage || usesStage) crossing.push(`${relative(webhooks, file)} imports ${relative(webhooks, target)}`);
      }
    }
    expect(crossing).to.deep.equal([]);
  });

  it('never imports a later stage of the request path into an earlier one', () => {
    const backwards: string[] = [];
    for (const file of sourceFiles(webhooks)) {
      const rank = rankOf(file);
      for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
        if (!target.startsWith(webhooks + sep)) continue;
        if (rankOf(target) > rank) backwards.push(`${relative(webhooks, file)} imports ${relative(webhooks, target)}`);
      }
    }
    expect(backwards).to.deep.equal([]);
  });

  it('gives every folder of lib/ a layer in LAYER_OF, and names no folder that is gone', () => {
    const present = folders();
    const unknown = present.filter((folder) => LAYER_OF[folder] === undefined)
      .map((folder) => `lib/${folder} has no layer: give it one in LAYER_OF of spec/layout.spec.ts (${LAYERS.join(', ')})`);
    const gone = Object.keys(LAYER_OF).filter((folder) => !present.includes(folder)).map((folder) => `lib/${folder} is gone: drop it from LAYER_OF`);
    expect([...unknown, ...gone]).to.deep.equal([]);
  });

  it('never imports a higher layer into a lower one (core ← stages ← addresses ← entries; definitions alone below)', () => {
    const upward: string[] = [];
    for (const [from, out] of folderImports()) {
      for (const [to, why] of out) {
        const [own, used] = [LAYER_OF[from], LAYER_OF[to]];
        if (own === undefined || used === undefined) continue;
        if (LAYERS.indexOf(used) > LAYERS.indexOf(own)) upward.push(`${why}: ${own} → ${used}`);
      }
    }
    expect(upward).to.deep.equal([]);
  });

  it('has no circle between rooms: no two folders of lib/ import each other, directly or round a circle', () => {
    expect(circles(folderImports())).to.deep.equal([]);
  });
});
