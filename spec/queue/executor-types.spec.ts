/**
 * One executor for both places that take one: an executor typed by its body (`WebhookExecutor<{ name: string }>`,
 * or `SchemaOutput` of a payload schema) compiles as the middleware's executor and as a queue worker's, in a user's
 * file under strict; an untyped one still sees the body as unknown in the worker, and the queued run's extras stay
 * typed. Compiled as a user compiles: through the package's entry points.
 */
import { expect } from 'chai';
import { compileErrors } from '../support/readme/blocks.js';

const USER_FILE = `import { z } from 'zod';
import { createWebhookMiddleware, MemoryWebhookRegistry, type SchemaOutput, type WebhookExecutor } from 'workflow-webhooks';
import { createWebhookWorker, type QueuedWebhookRun } from 'workflow-webhooks/queue';

const ORDER = z.object({ name: z.string(), qty: z.number() });
const connection = { url: 'redis://127.0.0.1:6379' };

export const greet: WebhookExecutor<{ name: string }> = (run) => ({ items: [{ json: { hello: run.items[0].json.body.name } }] });
export const order: WebhookExecutor<SchemaOutput<typeof ORDER>> = async (run) => {
  const { name, qty } = run.items[0].json.body;
  return { items: [{ json: { name: name.toUpperCase(), total: qty * 2 } }] };
};

export const middlewares = [greet, order].map((executor) => createWebhookMiddleware(new MemoryWebhookRegistry(), executor));
export const workers = [
  createWebhookWorker({ connection, executor: greet }),
  createWebhookWorker({ connection, executor: order }),
  createWebhookWorker({ connection, executor: (run) => ({ items: [{ json: { body: run.items[0]?.json.body ?? null, job: run.jobId } }] }) }),
  createWebhookWorker({ connection, executor: (run: QueuedWebhookRun) => ({ items: [{ json: { attempt: run.attempt } }] }) }),
];
`;

describe('an executor typed by its body', () => {
  it('compiles as the middleware\'s executor and as a queue worker\'s, typed from a plain type or a schema', function () {
    this.timeout(60_000);
    expect(compileErrors(USER_FILE)).to.deep.equal([]);
  });

  it('is still checked in the worker: a typed body is not another type, an untyped body is unknown', function () {
    this.timeout(60_000);
    const wrongField = USER_FILE.replace('total: qty * 2', 'total: name * 2');
    expect(compileErrors(wrongField).join('\n')).to.match(/arithmetic operation/);
    const untypedBody = USER_FILE.replace('executor: (run) => ({ items: [{ json: { body: run.items[0]?.json.body ?? null',
      'executor: (run) => ({ items: [{ json: { body: (run.items[0]?.json.body as { name: string } | undefined)?.name.length ?? run.items[0]?.json.body.name');
    expect(compileErrors(untypedBody).join('\n')).to.match(/unknown/);
  });
});
