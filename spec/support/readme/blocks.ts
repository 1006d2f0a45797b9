/**
 * README's code blocks, as a user copies them: found by the heading they sit under, and type-checked by the
 * TypeScript compiler as a file of a strict ESM project that imports the package by its name (through the package's
 * `exports`, with the in-repo source condition, so no build is needed). The file exists only in memory.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The `index`th ```ts (or `language`) block after the first heading line that starts with `heading`. */
export function readmeBlock(heading: string, index = 0, language = 'ts'): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`\n${heading}`);
  if (at === -1) throw new Error(`README has no heading "${heading}"`);
  const blocks = [...readme.slice(at).matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))];
  const block = blocks[index];
  if (block === undefined) throw new Error(`README has no ${language} block ${index} under "${heading}"`);
  return block[1] as string;
}

/** What a user's tsconfig says: `strict`, ESM through nodenext. */
export const USER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  skipLibCheck: true,
  noEmit: true,
  customConditions: ['workflow-webhooks-source'],
};

/**
 * The compiler's complaints about `code`, one line each with its line number; none when it compiles. The file sits
 * inside the package folder, so that `workflow-webhooks` resolves to this package by its own name; `extension`
 * `.cts` makes it a CommonJS file.
 */
export function compileErrors(code: string, options: ts.CompilerOptions = USER_OPTIONS, extension: '.ts' | '.cts' = '.ts'): string[] {
  const FILE = join(ROOT, `readme-block${extension}`);
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === FILE || fileExists.call(host, name);
  host.readFile = (name) => (name === FILE ? code : readFile.call(host, name));
  host.getSourceFile = (name, language, ...rest) =>
    (name === FILE ? ts.createSourceFile(name, code, language) : getSourceFile.call(host, name, language, ...rest));
  const program = ts.createProgram({ rootNames: [FILE], options, host });
  const file = program.getSourceFile(FILE);
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0;
    return `line ${line}: ${text}`;
  });
}
