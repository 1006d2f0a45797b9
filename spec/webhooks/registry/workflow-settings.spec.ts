import { expect } from 'chai';
import { MemoryWebhookRegistry, WebhookError, type WorkflowWebhooks } from '../../../lib/index.js';
import { resolveWorkflowSettings } from '../../../lib/webhooks/registry/workflow-settings.js';
import { refusal as codeOf } from '../../support/refusal.js';

/** A workflow's run settings (queue mode) are checked when it is activated, and travel with its webhooks. */
function withSettings(settings: unknown): WorkflowWebhooks {
  return { workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }], settings } as WorkflowWebhooks;
}

async function refusal(settings: unknown): Promise<WebhookError> {
  try {
    await new MemoryWebhookRegistry().activate(withSettings(settings));
  } catch (error) {
    return error as WebhookError;
  }
  throw new Error('the workflow was activated');
}

describe('workflow settings', () => {
  it('travel with every webhook of the activated workflow, as given', async () => {
    const registry = new MemoryWebhookRegistry();
    const [webhook] = await registry.activate(withSettings({ concurrency: 2, maxQueued: 0, attempts: 5, idempotencyHeader: true }));
    expect(webhook?.settings).to.deep.equal({ concurrency: 2, maxQueued: 0, attempts: 5, idempotencyHeader: true });
    const found = await registry.lookup('production', 'POST', 'orders');
    expect(found.found && found.webhook.settings).to.deep.equal(webhook?.settings);
  });

  it('leave a workflow without them as it always was', async () => {
    const [webhook] = await new MemoryWebhookRegistry().activate(withSettings(undefined));
    expect(webhook).to.not.have.property('settings');
  });

  it('name a header for idempotency by its name', async () => {
    const [webhook] = await new MemoryWebhookRegistry().activate(withSettings({ idempotencyHeader: 'X-Delivery-Id' }));
    expect(webhook?.settings).to.deep.equal({ idempotencyHeader: 'X-Delivery-Id' });
  });

  for (const [settings, named] of [
    [{ concurrency: 0 }, 'settings.concurrency must be a whole number of at least 1'],
    [{ concurrency: 1.5 }, 'settings.concurrency'],
    [{ maxQueued: -1 }, 'settings.maxQueued must be a whole number of at least 0'],
    [{ attempts: '3' }, 'settings.attempts'],
    [{ idempotencyHeader: 'bad header' }, 'settings.idempotencyHeader'],
    [[], 'settings must be an object'],
  ] as const) {
    it(`refuse ${JSON.stringify(settings)} at activation, naming the setting`, async () => {
      const error = await refusal(settings);
      expect(error).to.be.instanceOf(WebhookError);
      expect(error.code).to.equal('WEBHOOK_INVALID_NODE');
      expect(error.message).to.include(named).and.include('Workflow "wf"');
    });
  }
});

describe('resolveWorkflowSettings', () => {
  const resolve = (settings: unknown): unknown => resolveWorkflowSettings({ workflowId: 'wf', nodes: [], settings } as WorkflowWebhooks);
  const code = (settings: unknown): unknown => codeOf(() => resolve(settings));

  it('gives nothing for absent, null or empty settings', () => {
    for (const settings of [undefined, null, {}]) expect(resolve(settings), JSON.stringify(settings)).to.equal(undefined);
  });

  it('keeps counts without an idempotency header, and false means no header', () => {
    expect(resolve({ concurrency: 2 })).to.deep.equal({ concurrency: 2 });
    expect(resolve({ attempts: 3, idempotencyHeader: false })).to.deep.equal({ attempts: 3 });
    expect(resolve({ idempotencyHeader: false })).to.equal(undefined);
  });

  it('refuses settings that are text, and a header name that is not text', () => {
    expect(code('fast')).to.equal('WEBHOOK_INVALID_NODE');
    expect(code({ idempotencyHeader: 5 })).to.equal('WEBHOOK_INVALID_NODE');
    expect(code({ idempotencyHeader: null })).to.equal('WEBHOOK_INVALID_NODE');
  });
});
