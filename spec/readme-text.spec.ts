import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LIMITS } from '../lib/core/option-limits.js';
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

  it('name every shared store where the guides say where rate limit counts and waits live', () => {
    for (const guide of ['docs/rate-limits.md', 'docs/waiting.md']) {
      const text = readDoc(guide);
      for (const registry of ['MemoryWebhookRegistry', 'RedisWebhookRegistry', 'PostgresWebhookRegistry']) expect(text, `${guide}: ${registry}`).to.include(registry);
    }
  });

  it('tell n8n users which body limits are lower here than n8n\'s 16 MiB, and the option that raises each', () => {
    const guide = readDoc('docs/from-n8n.md');
    const lower = Object.entries({ jsonSize: 'LIMIT_JSON_SIZE', xmlSize: 'LIMIT_XML_SIZE', bodySize: 'LIMIT_BODY_SIZE' })
      .filter(([option]) => DEFAULT_LIMITS[option as 'jsonSize'] < 16 * 1024 * 1024);
    expect(lower.map(([option]) => option)).to.deep.equal(['jsonSize', 'xmlSize']);
    for (const [option, code] of lower) {
      expect(guide).to.include(code).and.include(`${option}: '16mb'`);
      expect(guide).to.include(`over ${DEFAULT_LIMITS[option as 'jsonSize'] / 1024 / 1024} MiB`);
    }
  });

  it('print curl lines that run as printed: a URL with brackets is passed with -g (no URL globbing)', () => {
    const lines = docs.flatMap(([, text]) => text.split('\n')).flatMap((line) => [...line.matchAll(/curl [^`\n]*/g)].map((match) => match[0]));
    expect(lines.length).to.be.greaterThan(10);
    const globbed = lines.filter((line) => /(?:^|\s)["']?(?:https?:|\$URL|localhost)[^\s"']*[[\]]/.test(line) && !/\s-g\b|--globoff/.test(line));
    expect(globbed).to.deep.equal([]);
  });
});
