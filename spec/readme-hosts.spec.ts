import { expect } from 'chai';
import ts from 'typescript';
import { compileErrors, readmeBlock, USER_OPTIONS } from './support/readme/blocks.js';

/**
 * README's host sections are copied as printed: their self-contained files compile under strict with the options
 * the section gives (a fresh app built from them is the proof for the rest; see the closing notes of the hosts work).
 */
describe('README\'s host sections', function () {
  this.timeout(60_000);

  it('NestJS: the webhooks module compiles as printed, with experimentalDecorators as its tsconfig says', () => {
    const options = { ...USER_OPTIONS, experimentalDecorators: true, emitDecoratorMetadata: true, target: ts.ScriptTarget.ES2022 };
    expect(compileErrors(readmeBlock('## NestJS'), options)).to.deep.equal([]);
  });

  it('Fastify: the app compiles as printed, and so does it with the error handler that follows it', () => {
    const app = readmeBlock('## Fastify');
    expect(compileErrors(app)).to.deep.equal([]);
    const handler = readmeBlock('## Fastify', 1).replace(/^import .*\n/m, '');
    expect(compileErrors(`import { WebhookError } from 'workflow-webhooks';\n${app}\n${handler}`)).to.deep.equal([]);
  });

  it('Console: the mount behind HTTP Basic compiles as printed, and so does the Redis call log beside it', () => {
    expect(compileErrors(readmeBlock('## Console'))).to.deep.equal([]);
    const redis = `import { createClient } from 'redis';\nconst client = createClient();\n${readmeBlock('## Console', 1)}`;
    expect(compileErrors(redis)).to.deep.equal([]);
  });
});
