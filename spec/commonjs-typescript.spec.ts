import { expect } from 'chai';
import ts from 'typescript';
import { compileErrors, docBlock } from './support/readme/blocks.js';

/**
 * The hosts guide's CommonJS recipe (docs/hosts.md): its code block compiled as a CommonJS file (`.cts`, which TypeScript always treats as
 * CommonJS, as it treats a `.ts` file of a package without `"type": "module"`) under the tsconfig the guide prints.
 */
const tsconfig = JSON.parse(docBlock('docs/hosts.md', '## CommonJS TypeScript', 0, 'json')) as { compilerOptions: Record<string, unknown> };

function optionsOf(overrides: Record<string, unknown> = {}): ts.CompilerOptions {
  const converted = ts.convertCompilerOptionsFromJson({ ...tsconfig.compilerOptions, ...overrides }, '.');
  expect(converted.errors).to.deep.equal([]);
  // Where the user's files sit and go (rootDir, outDir) is their project's layout; here the package resolves to its
  // sources in lib/, outside any user rootDir.
  const { rootDir: _rootDir, outDir: _outDir, ...semantics } = converted.options;
  return { ...semantics, noEmit: true, skipLibCheck: true, types: ['node'], customConditions: ['workflow-webhooks-source'] };
}

describe('the hosts guide\'s CommonJS TypeScript recipe', function () {
  this.timeout(30_000);
  const code = docBlock('docs/hosts.md', '## CommonJS TypeScript');

  it('compiles as a CommonJS file under the tsconfig the guide prints, its imports becoming require() calls', () => {
    expect(tsconfig.compilerOptions.module).to.equal('nodenext');
    expect(compileErrors(code, optionsOf(), '.cts')).to.deep.equal([]);
    const emitted = ts.transpileModule(code, { compilerOptions: { ...optionsOf(), noEmit: false }, fileName: 'server.cts' }).outputText;
    expect(emitted).to.match(/require\("workflow-webhooks"\)/);
  });

  it('is refused under "module": "node16", as the guide says', () => {
    const errors = compileErrors(code, optionsOf({ module: 'node16', moduleResolution: 'node16' }), '.cts');
    expect(errors.join('\n')).to.match(/ECMAScript module|cannot be imported with 'require'/);
  });
});
