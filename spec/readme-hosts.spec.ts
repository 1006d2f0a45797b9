import { expect } from 'chai';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { compileErrors, docBlock, USER_OPTIONS } from './support/readme/blocks.js';

/**
 * The host sections of docs/hosts.md (and docs/console.md) are copied as printed: their self-contained files compile under strict with the options
 * the section gives (a fresh app built from them is the proof for the rest; see the closing notes of the hosts work).
 */
const MIDDIE = '### Through `@fastify/middie`';
const FASTIFY_APP = fileURLToPath(new URL('./support/readme/fastify-shutdown.ts', import.meta.url));

describe('the hosts guide\'s sections', function () {
  this.timeout(60_000);

  it('In front of Express: the server that offers each request to the middleware first compiles as printed, and so does the one with Connect in front', () => {
    expect(compileErrors(docBlock('docs/hosts.md', '## In front of Express'))).to.deep.equal([]);
    expect(compileErrors(docBlock('docs/hosts.md', '## In front of Express', 1))).to.deep.equal([]);
  });

  it('NestJS: the webhooks module compiles as printed, with experimentalDecorators as its tsconfig says', () => {
    const options = { ...USER_OPTIONS, experimentalDecorators: true, emitDecoratorMetadata: true, target: ts.ScriptTarget.ES2022 };
    expect(compileErrors(docBlock('docs/hosts.md', '## NestJS'), options)).to.deep.equal([]);
  });

  it('Fastify: the app with the plugin of workflow-webhooks/fastify compiles as printed, against Fastify\'s own types', () => {
    expect(compileErrors(docBlock('docs/hosts.md', '### As a plugin'))).to.deep.equal([]);
  });

  it('Fastify: the app through middie compiles as printed, and so does it with the error handler that follows it', () => {
    const app = docBlock('docs/hosts.md', MIDDIE);
    expect(compileErrors(app)).to.deep.equal([]);
    const handler = docBlock('docs/hosts.md', MIDDIE, 1).replace(/^import .*\n/m, '');
    expect(compileErrors(`import { WebhookError } from 'workflow-webhooks';\n${app}\n${handler}`)).to.deep.equal([]);
  });

  it('Console: the mount behind HTTP Basic compiles as printed, and so does the Redis call log beside it', () => {
    expect(compileErrors(docBlock('docs/console.md', '# Console'))).to.deep.equal([]);
    const redis = `import { createClient } from 'redis';\nconst client = createClient();\n${docBlock('docs/console.md', '# Console', 1)}`;
    expect(compileErrors(redis)).to.deep.equal([]);
  });

  it('Fastify through middie: the app run as printed shuts down on SIGTERM with exit code 0 while a run ignores its signal; its caller gets 503', async () => {
    const child = fork(FASTIFY_APP, [], {
      execArgv: ['--conditions=workflow-webhooks-source', '--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // The child says { port } once it listens and { running: true } once the executor has the call.
      const said = (what: 'port' | 'running') => new Promise<{ port?: number }>((resolve) => {
        const listener = (message: { port?: number; running?: boolean }) => {
          if (message[what] === undefined) return;
          child.off('message', listener);
          resolve(message);
        };
        child.on('message', listener);
      });
      const { port } = await Promise.race([
        said('port'),
        exited.then((code): never => { throw new Error(`the app exited with ${String(code)} before listening:\n${stderr}`); }),
      ]);
      const running = said('running');
      const call = fetch(`http://127.0.0.1:${port}/api/automation/webhook/signup`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Ada"}',
      });
      await running;
      child.kill('SIGTERM');
      const answer = await call;
      expect(answer.status).to.equal(503);
      expect(await answer.json()).to.include({ code: 'SHUTTING_DOWN' });
      expect(await exited, stderr).to.equal(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
