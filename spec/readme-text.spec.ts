import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docFiles, readDoc } from './support/readme/blocks.js';

/** Texts a user reads: README and the guides in docs/, the TSDoc of lib/ (it reaches the published .d.ts) and the CLI's messages. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const docs = docFiles().map((file) => [file, readDoc(file)] as const);

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** "spec 4.1", "(spec 2)", "DESIGN §2": a section number tells a user nothing; the rule itself must be said. */
const CITATION = /\bspec \d+(\.\d+)?\b|\bDESIGN(\.md)? §/;

describe('user-facing texts', () => {
  it('cite no section of a specification in README, docs/, lib/ or the CLI: they state the rule', () => {
    const cited = [...docs, ...sources(join(root, 'lib')).map((file) => [relative(root, file), readFileSync(file, 'utf8')] as const)]
      .flatMap(([name, text]) => text.split('\n').map((line, index) => [`${name}:${index + 1}`, line] as const))
      .filter(([, line]) => CITATION.test(line))
      .map(([where, line]) => `${where}: ${line.trim()}`);
    expect(cited).to.deep.equal([]);
  });

  it('print curl lines that run as printed: a URL with brackets is passed with -g (no URL globbing)', () => {
    const lines = docs.flatMap(([, text]) => text.split('\n')).flatMap((line) => [...line.matchAll(/curl [^`\n]*/g)].map((match) => match[0]));
    expect(lines.length).to.be.greaterThan(10);
    const globbed = lines.filter((line) => /(?:^|\s)["']?(?:https?:|\$URL|localhost)[^\s"']*[[\]]/.test(line) && !/\s-g\b|--globoff/.test(line));
    expect(globbed).to.deep.equal([]);
  });
});
