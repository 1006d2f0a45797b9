/**
 * Test webhooks of the embedded registry: a listen registers the workflow's test addresses for one
 * call within a window. The first call that reaches its workflow claims the listen and the addresses stop
 * listening at once; the window's end and cancel() stop them too. Recently ended addresses are remembered (bounded)
 * so a late call can be told *why* nothing listens.
 */
import { randomUUID } from 'node:crypto';
import { WebhookConflictError } from '../../core/errors.js';
import { TestAddresses } from './test-addresses.js';
import { resolveWorkflowWebhooks } from './resolve-workflow.js';
import type { WorkflowWebhooks } from '../../core/types.js';
import type {
  ListedTestWebhook,
  NotListeningReason,
  RegisteredWebhook,
  TestCallClaim,
  TestListenEvent,
  TestListenHandle,
  TestListenOptions,
  TestListenResult,
  WebhookLookup,
} from './contract.js';

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;

interface Listen {
  id: string;
  workflowId: string;
  webhooks: RegisteredWebhook[];
  expiresAt: number;
  state: 'listening' | 'claimed' | 'ended';
  timer: NodeJS.Timeout;
  emit: (event: TestListenEvent) => void;
  resolve: (result: TestListenResult) => void;
}

/** The listen window: 120 s by default, refused when not a positive number of milliseconds up to a day. */
export function checkListenTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw new TypeError(`workflow-webhooks: listenForTest timeoutMs must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS}.`);
  }
  return value;
}

export class TestListens {
  readonly #addresses = new TestAddresses();
  readonly #listens = new Map<string, Listen>();
  readonly #byWorkflow = new Map<string, Listen>();

  listen(workflow: WorkflowWebhooks, options: TestListenOptions = {}): TestListenHandle {
    const timeoutMs = checkListenTimeout(options.timeoutMs);
    const webhooks = resolveWorkflowWebhooks(workflow, 'test');
    for (const webhook of webhooks) {
      const owner = this.#addresses.owner(webhook);
      if (owner !== undefined && owner.workflowId !== webhook.workflowId) throw new WebhookConflictError(owner);
    }
    const earlier = this.#byWorkflow.get(workflow.workflowId);
    if (earlier !== undefined) this.#end(earlier, { status: 'cancelled', reason: 'replaced' }, 'cancelled');

    const id = randomUUID();
    const listening = webhooks.map((webhook) => ({ ...webhook, listenId: id }));
    const expiresAt = Date.now() + timeoutMs;
    let resolve!: (result: TestListenResult) => void;
    const result = new Promise<TestListenResult>((settle) => { resolve = settle; });
    const listen: Listen = {
      id,
      workflowId: workflow.workflowId,
      webhooks: listening,
      expiresAt,
      state: 'listening',
      timer: setTimeout(() => this.#end(listen, { status: 'timedOut' }, 'timedOut'), timeoutMs).unref(),
      emit: safeListener(options.onEvent),
      resolve,
    };
    this.#addresses.open(listening);
    this.#listens.set(id, listen);
    this.#byWorkflow.set(workflow.workflowId, listen);
    listen.emit({ type: 'listening', listenId: id, workflowId: listen.workflowId, expiresAt });
    return {
      listenId: id,
      expiresAt,
      webhooks: [...listening],
      result,
      cancel: () => {
        this.#end(listen, { status: 'cancelled', reason: 'cancelled' }, 'cancelled');
        return Promise.resolve();
      },
    };
  }

  lookup(method: string, path: string): WebhookLookup {
    return this.#addresses.lookup(method, path);
  }

  /** The webhooks of every listen still listening (a claimed one has its call already), with the window's end. */
  list(): ListedTestWebhook[] {
    return [...this.#listens.values()].filter((listen) => listen.state === 'listening')
      .flatMap((listen) => listen.webhooks.map((webhook) => ({ ...webhook, listenId: listen.id, expiresAt: listen.expiresAt })));
  }

  claim(webhook: RegisteredWebhook): TestCallClaim | undefined {
    const listen = webhook.listenId === undefined ? undefined : this.#listens.get(webhook.listenId);
    if (listen?.state !== 'listening') return undefined;
    listen.state = 'claimed';
    clearTimeout(listen.timer);
    this.#unlisten(listen, 'received');
    const where = { listenId: listen.id, workflowId: listen.workflowId };
    let arrived: TestListenResult & { status: 'received' } | undefined;
    return {
      arrived: (run) => {
        arrived = { status: 'received', run };
        listen.emit({ type: 'callArrived', ...where, run });
      },
      settled: ({ output, error }) => {
        const run = arrived?.run;
        if (run === undefined) return;
        if (error !== undefined) listen.emit({ type: 'failed', ...where, run, error });
        else if (output !== undefined) listen.emit({ type: 'completed', ...where, run, output });
        this.#finish(listen, error === undefined ? { status: 'received', run, output } : { status: 'received', run, error });
      },
    };
  }

  /** Ends a listen that no call claimed. */
  #end(listen: Listen, result: TestListenResult, reason: NotListeningReason): void {
    if (listen.state !== 'listening') return;
    clearTimeout(listen.timer);
    this.#unlisten(listen, reason);
    this.#finish(listen, result);
  }

  #finish(listen: Listen, result: TestListenResult): void {
    if (listen.state === 'ended') return;
    listen.state = 'ended';
    this.#listens.delete(listen.id);
    if (this.#byWorkflow.get(listen.workflowId) === listen) this.#byWorkflow.delete(listen.workflowId);
    listen.emit({ type: 'ended', listenId: listen.id, workflowId: listen.workflowId, status: result.status });
    listen.resolve(result);
  }

  #unlisten(listen: Listen, reason: NotListeningReason): void {
    this.#addresses.close(listen.webhooks, reason);
  }
}

/** A listen's onEvent, made safe: an editor's listener must not break the call it watches. */
export function safeListener(listener: TestListenOptions['onEvent']): (event: TestListenEvent) => void {
  return (event) => {
    try {
      listener?.(event);
    } catch {
      // Ignored on purpose: see above.
    }
  };
}
