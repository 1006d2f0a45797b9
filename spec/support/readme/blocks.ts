/**
 * The code blocks and tables of README and of the guides in docs/, as a user copies them: found by the heading they
 * sit under, and type-checked by the TypeScript compiler as a file of a strict ESM project that imports the package by
 * its name (through the package's `exports`, with the in-repo source condition, so no build is needed). The file
 * exists only in memory.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The text of one of the repository's documents, by its path from the root: `README.md` or a guide, `docs/hosts.md`. */
export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

/** The documents a user reads, by their paths from the root: README.md, then every guide in docs/. */
export function docFiles(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
}

/** Where the first heading line of `file` that starts with `heading` begins (its text from there on). */
function fromHeading(file: string, heading: string): string {
  const text = `\n${readDoc(file)}`;
  const at = text.indexOf(`\n${heading}`);
  if (at === -1) throw new Error(`${file} has no heading "${heading}"`);
  return text.slice(at + 1);
}

/**
 * The section of `file` under the first heading line that starts with `heading`: that line and everything up to the
 * next heading of the same level or above (fenced blocks are skipped: a `# comment` in a sh block is no heading).
 */
export function docSection(file: string, heading: string): string {
  const lines = fromHeading(file, heading).split('\n');
  const level = /^#+/.exec(heading)?.[0].length ?? 0;
  let fenced = false;
  const end = lines.findIndex((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    const hashes = fenced ? undefined : /^(#+) /.exec(line)?.[1];
    return index > 0 && hashes !== undefined && hashes.length <= level;
  });
  return lines.slice(0, end === -1 ? undefined : end).join('\n');
}

/** The `index`th ```ts (or `language`) block of `file` after the first heading line that starts with `heading`. */
export function docBlock(file: string, heading: string, index = 0, language = 'ts'): string {
  const blocks = [...fromHeading(file, heading).matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))];
  const block = blocks[index];
  if (block === undefined) throw new Error(`${file} has no ${language} block ${index} under "${heading}"`);
  return block[1] as string;
}

/** The `index`th ```ts (or `language`) block of README after the first heading line that starts with `heading`. */
export function readmeBlock(heading: string, index = 0, language = 'ts'): string {
  return docBlock('README.md', heading, index, language);
}

/**
 * The first table of `file` after the first heading line that starts with `heading` (or, when `header` is given, the
 * table whose header line is exactly `header`): its body rows as trimmed cells, the header and the rule left out.
 * A `\|` inside a cell is part of the cell.
 */
export function docTable(file: string, heading: string, header?: string): string[][] {
  const lines = fromHeading(file, heading).split('\n');
  const start = header === undefined ? lines.findIndex((line) => line.startsWith('|')) : lines.indexOf(header);
  if (start === -1) throw new Error(`${file} has no table ${header ?? ''} under "${heading}"`);
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  return lines.slice(start + 2, end === -1 ? undefined : end)
    .map((line) => line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
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
