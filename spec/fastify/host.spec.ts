/**
 * The plugin's types are structural: the declarations the build publishes import nothing of Fastify, and still a
 * strict TypeScript project registers the plugin on a Fastify 5 app, with Fastify's own types, without a cast.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { compileErrors, ROOT } from '../support/readme/blocks.js';

/** The declarations tsc writes for the entry point and everything it reaches, by file name. */
function declarationsOf(entry: string): Map<string, string> {
  const options: ts.CompilerOptions = {
    strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'], skipLibCheck: true, declaration: true, emitDeclarationOnly: true, rootDir: join(ROOT, 'lib'), outDir: join(ROOT, 'dist'),
  };
  const written = new Map<string, string>();
  const program = ts.createProgram({ rootNames: [join(ROOT, entry)], options });
  const result = program.emit(undefined, (name, text) => { written.set(name, text); });
  expect(result.diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))).to.deep.equal([]);
  return written;
}

const REGISTERING = `
import Fastify from 'fastify';
import { createWebhookMiddleware, MemoryWebhookRegistry } from 'workflow-webhooks';
import { webhookPlugin } from 'workflow-webhooks/fastify';

const middleware = createWebhookMiddleware(new MemoryWebhookRegistry(), (run) => ({ items: run.items }));
const app = Fastify({ logger: true });
`;

describe('workflow-webhooks/fastify: its types', function types() {
  this.timeout(60_000);

  it('publishes declarations that import nothing of Fastify', () => {
    const written = declarationsOf('lib/fastify/index.ts');
    const fastify = [...written.keys()].filter((name) => name.includes(`${join('dist', 'fastify')}`));
    expect(fastify.map((name) => name.slice(name.lastIndexOf('/') + 1)).sort()).to.deep.equal(['closing.d.ts', 'hand-off.d.ts', 'host.d.ts', 'index.d.ts', 'plugin.d.ts']);
    const leaking = [...written].filter(([, text]) => /(?:from|import\()\s*['"](?:fastify|@fastify\/[^'"]+)['"]/.test(text)).map(([name]) => name);
    expect(leaking).to.deep.equal([]);
  });

  it("lets a strict project register it on a Fastify 5 app with Fastify's own types, without a cast", () => {
    const code = `${REGISTERING}
await app.register(webhookPlugin, { middleware, prefix: '/hooks' });
await app.register(webhookPlugin, { middleware, prefix: '/v2/hooks', closeTimeoutMs: 3_000 });
await app.register(async (scope) => { await scope.register(webhookPlugin, { middleware }); }, { prefix: '/v1' });
`;
    expect(compileErrors(code)).to.deep.equal([]);
  });

  it('makes a registration without the middleware, or with an option of the wrong type, a compile error', () => {
    expect(compileErrors(`${REGISTERING}\nawait app.register(webhookPlugin, { prefix: '/hooks' });`)).to.have.length(1);
    expect(compileErrors(`${REGISTERING}\nawait app.register(webhookPlugin, { middleware, closeTimeoutMs: '3s' });`)).to.have.length(1);
  });
});
