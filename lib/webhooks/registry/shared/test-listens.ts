/**
 * Test listens across instances, whatever the shared store. A listen lives in the store for its window; a call
 * arriving at any instance claims it in one atomic step there, so exactly one call runs cluster-wide. The run executes
 * where the call arrived; its run data and outcome are relayed through the store to the instance holding the handle,
 * which tells the handle's onEvent and settles its result. Cancel, replacement and the window's end are change-log
 * entries every instance applies. The store's own room supplies the atomic steps (`ListenStore`).
 */
import { randomUUID } from 'node:crypto';
import { resolveWorkflowWebhooks } from '../resolve-workflow.js';
import { routeKey } from '../route-table.js';
import { checkListenTimeout, safeListener } from '../test-listens.js';
import type {
  CapturedRun,
  ListedTestWebhook,
  RegisteredWebhook,
  TestCallClaim,
  TestListenEvent,
  TestListenHandle,
  TestListenOptions,
  TestListenResult,
  WebhookLookup,
} from '../contract.js';
import type { ExecutionResult, WorkflowWebhooks } from '../../../core/types.js';
import { conflictFrom } from './conflicts.js';
import { ListenMirror, type ListenRecord } from './listen-mirror.js';
import { decodeOutcome, decodeRun, encodeOutcome, encodeRun } from './relay-codec.js';

/** How long a relayed run or outcome waits in the store for the instance that listens. */
export const RELAY_TTL_MS = 5 * 60 * 1000;

export type RelayStep = 'arrived' | 'settled';

/** What a store answers to a new listen: the window's end (store clock) and the workflow's replaced listen, or who holds an address. */
export type ListenStored = { stored: true; expiresAt: number; replaced: string | undefined } | { stored: false; key: string; holder: ListenRecord };

/** The atomic steps a store performs for test listens; each change also appends its entry to the change log. */
export interface ListenStore {
  /** Stores the listen for `timeoutMs` unless another workflow's live listen holds one of its route keys; ends the workflow's earlier listen ('replaced'). */
  listen(listen: ListenRecord['listen'], timeoutMs: number): Promise<ListenStored>;
  /** Ends a live listen as 'received': true for exactly one caller. */
  claim(listenId: string): Promise<boolean>;
  /** Ends a listen for `reason`: false when a call claimed it first or it ended otherwise. */
  end(listenId: string, reason: 'timedOut' | 'cancelled'): Promise<boolean>;
  /** Keeps a relayed step's payload for `RELAY_TTL_MS` and logs the step. */
  relay(listenId: string, step: RelayStep, payload: string): Promise<void>;
  /** Reads a relayed step's payload and removes it (null when gone). */
  take(listenId: string, step: RelayStep): Promise<string | null>;
}

/** One change-log entry about test listens, as every store's log carries it. */
export type ListenChange =
  | { op: 'listen'; record: ListenRecord }
  | { op: 'unlisten'; listenId: string; reason: string }
  | { op: RelayStep; listenId: string };

/** What the registry lends its test listens. */
export interface ListenContext {
  store: ListenStore;
  instanceId: string;
  /** The store's clock, estimated here. */
  storeNow(): number;
  report(error: unknown, during: string): void;
}

type Outcome = { output?: ExecutionResult; error?: Error };

interface OwnListen {
  id: string;
  workflowId: string;
  expiresAt: number;
  state: 'listening' | 'claimed' | 'ended';
  timer: NodeJS.Timeout | undefined;
  run: CapturedRun | undefined;
  emit: (event: TestListenEvent) => void;
  resolve: (result: TestListenResult) => void;
}

export class SharedTestListens {
  readonly #context: ListenContext;
  readonly #mirror = new ListenMirror();
  readonly #own = new Map<string, OwnListen>();

  constructor(context: ListenContext) {
    this.#context = context;
  }

  get size(): number {
    return this.#mirror.size;
  }

  lookup(method: string, path: string): WebhookLookup {
    return this.#mirror.lookup(method, path);
  }

  /** Every instance's listening test webhooks; a listen held here gives the very end its handle told. */
  list(): ListedTestWebhook[] {
    return this.#mirror.list().map((webhook) => {
      const own = this.#own.get(webhook.listenId);
      return own?.state === 'listening' ? { ...webhook, expiresAt: own.expiresAt } : webhook;
    });
  }

  async listen(workflow: WorkflowWebhooks, options: TestListenOptions = {}): Promise<TestListenHandle> {
    const timeoutMs = checkListenTimeout(options.timeoutMs);
    resolveWorkflowWebhooks(workflow, 'test');
    const plain = JSON.parse(JSON.stringify(workflow)) as WorkflowWebhooks;
    const routeKeys = [...new Set(resolveWorkflowWebhooks(plain, 'test').map(routeKey))];
    const listen: ListenRecord['listen'] = {
      listenId: randomUUID(), workflowId: plain.workflowId, workflow: plain, routeKeys, timeoutMs, instance: this.#context.instanceId,
    };
    const reply = await this.#context.store.listen(listen, timeoutMs);
    if (!reply.stored) throw conflictFrom(reply.key, reply.holder.listen.workflowId, JSON.stringify(reply.holder.listen.workflow), 'test');
    // The replaced listen stops here now; its handle, if another instance holds it, learns it from the log.
    const replaced = reply.replaced;
    if (replaced !== undefined) {
      this.#mirror.close(replaced, 'cancelled');
      const earlier = this.#own.get(replaced);
      if (earlier?.state === 'listening') this.#finish(earlier, { status: 'cancelled', reason: 'replaced' });
    }
    let resolve!: (result: TestListenResult) => void;
    const result = new Promise<TestListenResult>((settle) => { resolve = settle; });
    const own: OwnListen = {
      id: listen.listenId, workflowId: listen.workflowId, expiresAt: Date.now() + timeoutMs, state: 'listening',
      timer: undefined, run: undefined, emit: safeListener(options.onEvent), resolve,
    };
    own.timer = setTimeout(() => void this.#expire(own), timeoutMs).unref();
    this.#own.set(own.id, own);
    const webhooks = this.#mirror.open({ expiresAt: reply.expiresAt, listen }, timeoutMs)
      ?? resolveWorkflowWebhooks(plain, 'test').map((webhook) => ({ ...webhook, listenId: own.id }));
    own.emit({ type: 'listening', listenId: own.id, workflowId: own.workflowId, expiresAt: own.expiresAt });
    return { listenId: own.id, expiresAt: own.expiresAt, webhooks, result, cancel: () => this.#end(own, 'cancelled') };
  }

  async claim(webhook: RegisteredWebhook): Promise<TestCallClaim | undefined> {
    const listenId = webhook.listenId;
    if (listenId === undefined) return undefined;
    if (!await this.#context.store.claim(listenId)) return undefined;
    this.#mirror.close(listenId, 'received');
    const own = this.#own.get(listenId);
    if (own?.state === 'listening') {
      this.#claimed(own);
      return { arrived: (run) => this.#arrive(own, run), settled: (outcome) => this.#settle(own, outcome) };
    }
    return this.#relayingClaim(listenId);
  }

  /** Applies one change-log entry about test listens. */
  async apply(change: ListenChange): Promise<void> {
    if (change.op === 'listen') {
      this.#mirror.open(change.record, change.record.expiresAt - this.#context.storeNow());
      return;
    }
    const { op, listenId } = change;
    const own = this.#own.get(listenId);
    if (change.op === 'unlisten') {
      const reason = change.reason;
      this.#mirror.close(listenId, reason === 'replaced' ? 'cancelled' : reason as 'received' | 'timedOut' | 'cancelled');
      if (own?.state !== 'listening') return;
      if (reason === 'received') this.#claimed(own);
      else if (reason === 'timedOut') this.#finish(own, { status: 'timedOut' });
      else this.#finish(own, { status: 'cancelled', reason: reason === 'replaced' ? 'replaced' : 'cancelled' });
      return;
    }
    if (own === undefined || own.state === 'ended') return;
    const text = await this.#context.store.take(listenId, op as RelayStep);
    if (text === null) {
      this.#context.report(new Error(`The relayed ${op} data of test listen ${listenId} expired before it was read.`), 'relaying a test call');
      return;
    }
    if (op === 'arrived') this.#arrive(own, decodeRun(text));
    else this.#settle(own, decodeOutcome(text));
  }

  /** After a full reload: the store's live listens, and the end of own listens the store no longer has. */
  replace(records: ListenRecord[]): void {
    const live = new Set(records.map((record) => record.listen.listenId));
    for (const listenId of this.#mirror.ids()) if (!live.has(listenId)) this.#mirror.close(listenId, 'cancelled');
    for (const record of records) this.#mirror.open(record, record.expiresAt - this.#context.storeNow());
    for (const own of this.#own.values()) {
      if (own.state !== 'listening' || live.has(own.id)) continue;
      this.#finish(own, Date.now() >= own.expiresAt ? { status: 'timedOut' } : { status: 'cancelled', reason: 'cancelled' });
    }
  }

  /** Ends this instance's listens (best effort in the store) and stops every timer. */
  async close(): Promise<void> {
    const listening = [...this.#own.values()].filter((own) => own.state === 'listening');
    await Promise.all(listening.map((own) => this.#end(own, 'cancelled').catch(() => undefined)));
    for (const own of this.#own.values()) if (own.state !== 'ended') this.#finish(own, { status: 'cancelled', reason: 'cancelled' });
    this.#mirror.closeAll();
  }

  #claimed(own: OwnListen): void {
    own.state = 'claimed';
    clearTimeout(own.timer);
  }

  #arrive(own: OwnListen, run: CapturedRun): void {
    if (own.state === 'ended' || own.run !== undefined) return;
    own.state = 'claimed';
    own.run = run;
    own.emit({ type: 'callArrived', listenId: own.id, workflowId: own.workflowId, run });
  }

  #settle(own: OwnListen, { output, error }: Outcome): void {
    const run = own.run;
    if (run === undefined || own.state === 'ended') return;
    const where = { listenId: own.id, workflowId: own.workflowId, run };
    if (error !== undefined) own.emit({ type: 'failed', ...where, error });
    else if (output !== undefined) own.emit({ type: 'completed', ...where, output });
    this.#finish(own, error === undefined ? { status: 'received', run, output } : { status: 'received', run, error });
  }

  #finish(own: OwnListen, result: TestListenResult): void {
    if (own.state === 'ended') return;
    own.state = 'ended';
    clearTimeout(own.timer);
    this.#own.delete(own.id);
    own.emit({ type: 'ended', listenId: own.id, workflowId: own.workflowId, status: result.status });
    own.resolve(result);
  }

  /** Ends a listen this instance holds, as the window's end or cancel(); a call that claimed it first wins. */
  async #end(own: OwnListen, reason: 'timedOut' | 'cancelled'): Promise<void> {
    if (own.state !== 'listening') return;
    const doing = reason === 'timedOut' ? 'ending a test listen whose window passed' : 'cancelling a test listen';
    const result: TestListenResult = reason === 'timedOut' ? { status: 'timedOut' } : { status: 'cancelled', reason: 'cancelled' };
    let ended: boolean;
    try {
      ended = await this.#context.store.end(own.id, reason);
    } catch (error) {
      // Without the store the listen still ends here; in the store it lapses with its window.
      this.#mirror.close(own.id, reason);
      this.#finish(own, result);
      throw error;
    }
    if (!ended) return;
    this.#mirror.close(own.id, reason);
    this.#finish(own, result);
  }

  async #expire(own: OwnListen): Promise<void> {
    try {
      await this.#end(own, 'timedOut');
    } catch (error) {
      this.#context.report(error, 'ending a test listen whose window passed');
    }
  }

  /** A claim on an instance that does not hold the listen: run data and outcome go through the store, in order. */
  #relayingClaim(listenId: string): TestCallClaim {
    let queue = Promise.resolve();
    const send = (step: RelayStep, payload: () => string): void => {
      queue = queue.then(() => this.#context.store.relay(listenId, step, payload()))
        .then(() => undefined, (error: unknown) => this.#context.report(error, 'relaying a test call to the instance that listens'));
    };
    return {
      arrived: (run) => send('arrived', () => encodeRun(run)),
      settled: (outcome) => send('settled', () => encodeOutcome(outcome)),
    };
  }
}
