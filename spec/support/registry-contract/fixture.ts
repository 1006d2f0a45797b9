/**
 * What the registry conformance suite shares: the harness a registry's spec supplies, a per-test registry fixture,
 * and small builders.
 */
import { expect } from 'chai';
import {
  WebhookError,
  type RegisteredWebhook,
  type WebhookRegistry,
  type WebhookRun,
  type WorkflowWebhooks,
} from 'workflow-webhooks';

export interface RegistryHarness {
  /** A new registry over an empty store. */
  create(): WebhookRegistry | Promise<WebhookRegistry>;
  /** Another instance over the same store as `registry` (several instances); omit for in-process registries. */
  peer?(registry: WebhookRegistry): WebhookRegistry | Promise<WebhookRegistry>;
  /** Releases a registry the harness made (timers, connections). */
  dispose?(registry: WebhookRegistry): void | Promise<void>;
  /** The registry offers the optional `rememberMessageId` (signed webhooks' replay memory). */
  remembersMessageIds?: boolean;
  /** The registry offers the optional `listTestWebhooks` (the console's list of listening test webhooks). */
  listsTestWebhooks?: boolean;
  /** The registry offers the optional `listWaits` (the console's list of waiting runs), beside `putWait`. */
  listsWaits?: boolean;
}

export function workflowOf(workflowId: string, parameters: WorkflowWebhooks['nodes'][number]['parameters'], workflowName?: string): WorkflowWebhooks {
  return { workflowId, workflowName, nodes: [{ name: 'Webhook', parameters }] };
}

export async function rejectionOf(promise: Promise<unknown>): Promise<WebhookError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(WebhookError);
    return error as WebhookError;
  }
  throw new Error('expected a rejection');
}

/** The run a call would hand to the executor; plain data, as a registry may carry it to another instance. */
export function runFor(webhook: RegisteredWebhook, body: unknown = { hello: 'world' }): WebhookRun {
  return {
    workflowId: webhook.workflowId,
    workflowName: webhook.workflowName,
    nodeName: webhook.nodeName,
    mode: 'test',
    method: webhook.method,
    outputIndex: webhook.outputIndex,
    items: [{ json: { headers: {}, body, params: {}, query: {}, webhookUrl: `http://127.0.0.1/webhook-test/${webhook.path}`, executionMode: 'test' } }],
    respond: () => undefined,
    signal: new AbortController().signal,
    callId: 'contract-call',
    get resumeUrl(): string { return notHere(); },
    resumeUrlFor: notHere,
    waitForCall: notHere,
    suspend: notHere,
  };
}

/** The contract's runs never wait: only a middleware's runs can. */
function notHere(): never {
  throw new Error('A registry contract run cannot wait for a call.');
}

/** Opens a registry per test and disposes of every registry the test made. */
export function registryFixture(harness: RegistryHarness): { readonly registry: WebhookRegistry; peer(): Promise<WebhookRegistry> } {
  const made: WebhookRegistry[] = [];
  let current: WebhookRegistry | undefined;
  beforeEach(async () => {
    current = await harness.create();
    made.push(current);
  });
  afterEach(async () => {
    for (const registry of made.splice(0).reverse()) await harness.dispose?.(registry);
  });
  return {
    get registry(): WebhookRegistry {
      if (current === undefined) throw new Error('no registry yet');
      return current;
    },
    async peer(): Promise<WebhookRegistry> {
      if (harness.peer === undefined || current === undefined) throw new Error('this registry has no peers');
      const peer = await harness.peer(current);
      made.push(peer);
      return peer;
    },
  };
}

export type RegistryFixture = ReturnType<typeof registryFixture>;
