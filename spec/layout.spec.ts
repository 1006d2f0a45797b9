import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folders of lib/webhooks read as the request path: a stage may use the stages before it, never one after it,
 * so a reader can follow a call from the first folder to the last.
 */
const STAGES = ['registry', 'request', 'guards', 'body', 'uploads', 'payload', 'run', 'response'];
/** The wiring: it may use every stage. (The contracts every stage shares are lib/core/, below them all.) */
const WIRING = ['middleware.ts', 'call-wiring.ts', 'options.ts'];
/**
 * Beside the request path, not on it (describe: the OpenAPI document): it reads the registry and the shared
 * contracts only, and only the wiring uses it, so no stage of a call depends on it.
 */
const BESIDE = ['describe'];
const MAX_LINES = 300;

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
  if (second === undefined) return Infinity;
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

  it('holds lib/webhooks in one folder per stage of the request path, plus the wiring and what is beside the path', () => {
    const top = readdirSync(webhooks).sort();
    expect(top).to.deep.equal([...STAGES, ...WIRING, ...BESIDE].sort());
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
});
