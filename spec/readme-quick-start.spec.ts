import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * README's Quick start is what a new user pastes first, so it must compile as printed. The block is type-checked by
 * the TypeScript compiler as a file of a strict ESM project that imports the package by its name (through the
 * package's `exports`, with the in-repo source condition, so no build is needed). The file exists only in memory:
 * nothing is written into the repository.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

function quickStart(): string {
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error('README has no ```ts block under "## Quick start"');
  return block[1] as string;
}

/** What a user's tsconfig says: `strict`, ESM through nodenext. */
const USER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  skipLibCheck: true,
  noEmit: true,
  customConditions: ['workflow-webhooks-source'],
};

/** Inside the package folder, so that `workflow-webhooks` resolves to this package by its own name. */
const FILE = join(root, 'readme-quick-start.ts');

function diagnostics(code: string, options: ts.CompilerOptions, oldProgram?: ts.Program): { program: ts.Program; messages: string[] } {
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === FILE || fileExists.call(host, name);
  host.readFile = (name) => (name === FILE ? code : readFile.call(host, name));
  host.getSourceFile = (name, language, ...rest) =>
    (name === FILE ? ts.createSourceFile(name, code, language) : getSourceFile.call(host, name, language, ...rest));
  const program = ts.createProgram({ rootNames: [FILE], options, host, oldProgram });
  const file = program.getSourceFile(FILE);
  const found = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  const messages = found.map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0;
    return `line ${line}: ${text}`;
  });
  return { program, messages };
}

describe('README\'s Quick start', function () {
  this.timeout(30_000);

  it('compiles as printed under strict, importing the package by its name', () => {
    const { messages } = diagnostics(quickStart(), USER_OPTIONS);
    expect(messages).to.deep.equal([]);
  });

  it('compiles with noUncheckedIndexedAccess too: a typed run has its one trigger item', () => {
    const strictest = { ...USER_OPTIONS, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true };
    expect(diagnostics(quickStart(), strictest).messages).to.deep.equal([]);
  });

  it('is really checked: a wrong body property is an error', () => {
    const broken = quickStart().replace('.json.body.name', '.json.body.nmae');
    expect(broken).to.not.equal(quickStart());
    expect(diagnostics(broken, USER_OPTIONS).messages.join('\n')).to.match(/nmae/);
  });
});
