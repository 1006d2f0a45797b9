/**
 * What the registry conformance suite shares: the harness a registry's spec supplies, a per-test registry fixture,
 * and small builders.
 */
import { expect } from 'chai';
import {
  WebhookError,
  type CapturedRun,
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
  /**
   * The registry keeps waits (the optional `putWait`, `getWait`, `claimWait`, `onWaitExpired`): `withMaxWaiting` makes
   * a new registry over an empty store that holds at most `maxWaiting` live waits.
   */
  keepsWaits?: { withMaxWaiting(maxWaiting: number): WebhookRegistry | Promise<WebhookRegistry> };
  /** The registry offers the optional `chargeRateLimits` (rate limits counted for every middleware that shares it). */
  countsRateLimits?: boolean;
  /** The registry offers the optional `addRateLimitCalls` (calls counted without it, added when it counts again). */
  addsRateLimitCalls?: boolean;
  /** The registry offers the optional `digestKey` (the deployment's rate-limit digest key, kept by its store). */
  keepsDigestKey?: boolean;
  /**
   * With `countsRateLimits`: runs `work` with the clock the store measures its rate-limit windows by under the spec's
   * hand, so no window test waits for real time: `advance(ms)` ends every window of `registry` and its peers `ms`
   * sooner. How is the store's own affair (the memory registry's performance.now() faked, a Redis budget's expiry
   * shortened).
   */
  rateLimitClock?<T>(registry: WebhookRegistry, work: (advance: (ms: number) => Promise<void>) => Promise<T>): Promise<T>;
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

/** The contract's runs never wait: only a middleware's runs can. */
function notHere(): never {
  throw new Error('A registry contract run cannot wait for a call.');
}

/**
 * What a run can do beyond its data, kept on its prototype as a middleware's run keeps it: the data alone is what a
 * registry may carry to another instance, and what `JSON.stringify()` of a test listen's result writes.
 */
const RUN_MEMBERS: Pick<WebhookRun, 'respond' | 'signal' | 'resumeUrl' | 'resumeUrlFor' | 'waitForCall' | 'suspend'> = {
  respond: () => undefined,
  get signal(): AbortSignal { return new AbortController().signal; },
  get resumeUrl(): string { return notHere(); },
  resumeUrlFor: notHere,
  waitForCall: notHere,
  suspend: notHere,
};

/** The run a call would hand to the executor. */
export function runFor(webhook: RegisteredWebhook, body: unknown = { hello: 'world' }): WebhookRun {
  const data: CapturedRun = {
    workflowId: webhook.workflowId,
    workflowName: webhook.workflowName,
    nodeName: webhook.nodeName,
    mode: 'test',
    method: webhook.method,
    outputIndex: webhook.outputIndex,
    items: [{ json: { headers: {}, body, params: {}, query: {}, webhookUrl: `http://127.0.0.1/webhook-test/${webhook.path}`, executionMode: 'test' } }],
    callId: 'contract-call',
  };
  return Object.assign(Object.create(RUN_MEMBERS) as typeof RUN_MEMBERS, data);
}

/** Opens a registry per test and disposes of every registry the test made. */
export interface RegistryFixture {
  readonly registry: WebhookRegistry;
  peer(): Promise<WebhookRegistry>;
  /** Another registry over a new, empty store of its own. */
  another(): Promise<WebhookRegistry>;
  /** A registry over a store of its own that holds at most `maxWaiting` waits; fails the test when the harness keeps no waits. */
  withMaxWaiting(maxWaiting: number): Promise<WebhookRegistry>;
  /** The harness's rateLimitClock for the current registry; fails the test when the harness gives none. */
  withRateLimitClock<T>(work: (advance: (ms: number) => Promise<void>) => Promise<T>): Promise<T>;
}

export function registryFixture(harness: RegistryHarness): RegistryFixture {
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
    async another(): Promise<WebhookRegistry> {
      const other = await harness.create();
      made.push(other);
      return other;
    },
    async withMaxWaiting(maxWaiting: number): Promise<WebhookRegistry> {
      if (harness.keepsWaits === undefined) throw new Error('this registry keeps no waits');
      const limited = await harness.keepsWaits.withMaxWaiting(maxWaiting);
      made.push(limited);
      return limited;
    },
    withRateLimitClock(work) {
      if (harness.rateLimitClock === undefined || current === undefined) throw new Error('a harness that counts rate limits gives rateLimitClock');
      return harness.rateLimitClock(current, work);
    },
  };
}
