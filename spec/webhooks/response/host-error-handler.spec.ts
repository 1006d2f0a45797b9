import { expect } from 'chai';
import express5 from 'express';
import express4 from 'express4';
import request from 'supertest';
import ts from 'typescript';
import { createWebhookMiddleware, MemoryWebhookRegistry, WebhookError, type WebhookExecutor } from '../../../lib/index.js';
import { compileErrors, docBlock } from '../../support/readme/blocks.js';
import { workflow } from '../../support/workflows.js';

/** The errors guide's error handler (docs/errors.md) for `errorHandling: 'next'`, exactly as printed. */
const block = docBlock('docs/errors.md', '# Errors');
const imports = block.split('\n').filter((line) => line.startsWith('import ')).join('\n');
const rest = block.split('\n').filter((line) => !line.startsWith('import ')).join('\n');

/** What the block leaves to its reader: an app, a registry, an executor. */
const PRELUDE = `import express from 'express';
import type { WebhookExecutor, WebhookRegistry } from 'workflow-webhooks';
declare const app: express.Express;
declare const registry: WebhookRegistry;
declare const executor: WebhookExecutor;
`;

type Mounts = (app: unknown, registry: unknown, executor: unknown, make: unknown, errorClass: unknown) => void;
const AsyncFunction = Function as unknown as new (...args: string[]) => Mounts;
const mountAsPrinted = new AsyncFunction('app', 'registry', 'executor', 'createWebhookMiddleware', 'WebhookError',
  ts.transpileModule(rest, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText);

describe('the errors guide\'s error handler for errorHandling: \'next\'', function () {
  this.timeout(30_000);

  it('compiles as printed under strict', () => {
    expect(compileErrors(`${imports}\n${PRELUDE}${rest}`)).to.deep.equal([]);
  });

  for (const [name, make] of [['Express 5', express5], ['Express 4', express4]] as const) {
    describe(`in ${name}`, () => {
      async function app(): Promise<ReturnType<typeof express5>> {
        const registry = new MemoryWebhookRegistry();
        await registry.activate(workflow('wf', { path: 'orders', httpMethod: 'POST' }));
        const executor: WebhookExecutor = () => ({ items: [] });
        const built = (make as unknown as () => ReturnType<typeof express5>)();
        built.get('/api/orders', () => { throw new Error('a host route failed'); });
        mountAsPrinted(built, registry, executor, createWebhookMiddleware, WebhookError);
        // The host's last handler, for errors that are not the webhooks'.
        built.use((_err: unknown, _req: unknown, res: { status(code: number): { send(body: string): void } }, _next: unknown) => { res.status(500).send('host handler'); });
        return built;
      }

      it('answers webhook errors in the host\'s format, with their status, code, message and headers', async () => {
        const built = await app();
        const missing = await request(built).post('/api/automation/webhook/nowhere').expect(404);
        expect(missing.body.error.code).to.equal('WEBHOOK_NOT_FOUND');
        const wrongMethod = await request(built).get('/api/automation/webhook/orders').expect(405);
        expect([wrongMethod.body.error.code, wrongMethod.headers.allow]).to.deep.equal(['WEBHOOK_METHOD_NOT_ALLOWED', 'POST']);
        const malformed = await request(built).post('/api/automation/webhook/orders').set('content-type', 'application/json').send('{nope').expect(400);
        expect(malformed.body.error.code).to.equal('BODY_INVALID_JSON');
        expect(malformed.body.error.message).to.be.a('string');
        await request(built).post('/api/automation/webhook/orders').send({ ok: true }).expect(200);
      });

      it('leaves every other error to the next handler', async () => {
        await request(await app()).get('/api/orders').expect(500, 'host handler');
      });
    });
  }
});
