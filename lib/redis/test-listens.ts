/**
 * Test listens across instances. A listen lives in Redis for its window; a call arriving at any instance claims
 * it with one script, so exactly one call runs cluster-wide. The run executes where the call arrived; its run data
 * and outcome are relayed through Redis to the instance holding the handle, which tells the handle's onEvent and
 * settles its result. Cancel, replacement and the window's end are log entries every instance applies.
 */
import { randomUUID } from 'node:crypto';
import { resolveWorkflowWebhooks } from '../webhooks/registry/resolve-workflow.js';
import { routeKey } from '../webhooks/registry/route-table.js';
import { checkListenTimeout, safeListener } from '../webhooks/registry/test-listens.js';
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
} from '../webhooks/registry/contract.js';
import type { ExecutionResult, WorkflowWebhooks } from '../core/types.js';
import { conflictFrom } from './conflicts.js';
import type { RegistryKeys } from './keys.js';
import { ListenMirror, type ListenRecord } from './listen-mirror.js';
import type { LogEntry } from './log-reader.js';
import { decodeOutcome, decodeRun, encodeOutcome, encodeRun } from './relay-codec.js';
import { CLAIM, END, LISTEN, RELAY, type Script } from './scripts.js';

/** How long a relayed run or outcome waits in Redis for the instance that listens. */
const RELAY_TTL_MS = 5 * 60 * 1000;

/** What the registry lends its test listens. */
export interface ListenContext {
  keys: RegistryKeys;
  instanceId: string;
  /** Runs a guarded script (epoch and deadline handled); resolves the reply. */
  change(script: Script, keys: string[], args: string[], doing: string): Promise<unknown[]>;
  /** Reads one key and removes it. */
  read(key: string, doing: string): Promise<string | null>;
  /** Redis' clock, estimated here. */
  redisNow(): number;
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

export class RedisTestListens {
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

  #scriptKeys(): string[] {
    const { keys } = this.#context;
    return [keys.listens, keys.testRoutes, keys.testWorkflows];
  }

  async listen(workflow: WorkflowWebhooks, options: TestListenOptions = {}): Promise<TestListenHandle> {
    const timeoutMs = checkListenTimeout(options.timeoutMs);
    resolveWorkflowWebhooks(workflow, 'test');
    const plain = JSON.parse(JSON.stringify(workflow)) as WorkflowWebhooks;
    const routeKeys = [...new Set(resolveWorkflowWebhooks(plain, 'test').map(routeKey))];
    const listen: ListenRecord['listen'] = {
      listenId: randomUUID(), workflowId: plain.workflowId, workflow: plain, routeKeys, timeoutMs, instance: this.#context.instanceId,
    };
    const reply = await this.#context.change(LISTEN, this.#scriptKeys(),
      [listen.listenId, listen.workflowId, JSON.stringify(listen), String(timeoutMs), ...routeKeys], 'starting a test listen');
    if (reply[0] === 'CONFLICT') {
      const holder = JSON.parse(String(reply[2])) as ListenRecord;
      throw conflictFrom(String(reply[1]), holder.listen.workflowId, JSON.stringify(holder.listen.workflow), 'test');
    }
    // The replaced listen stops here now; its handle, if another instance holds it, learns it from the log.
    const replaced = String(reply[3]);
    if (replaced !== '') {
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
    const webhooks = this.#mirror.open({ expiresAt: Number(reply[1]), listen }, timeoutMs)
      ?? resolveWorkflowWebhooks(plain, 'test').map((webhook) => ({ ...webhook, listenId: own.id }));
    own.emit({ type: 'listening', listenId: own.id, workflowId: own.workflowId, expiresAt: own.expiresAt });
    return { listenId: own.id, expiresAt: own.expiresAt, webhooks, result, cancel: () => this.#end(own, 'cancelled') };
  }

  async claim(webhook: RegisteredWebhook): Promise<TestCallClaim | undefined> {
    const listenId = webhook.listenId;
    if (listenId === undefined) return undefined;
    const reply = await this.#context.change(CLAIM, this.#scriptKeys(), [listenId], 'claiming a test call');
    if (reply[0] !== 'OK') return undefined;
    this.#mirror.close(listenId, 'received');
    const own = this.#own.get(listenId);
    if (own?.state === 'listening') {
      this.#claimed(own);
      return { arrived: (run) => this.#arrive(own, run), settled: (outcome) => this.#settle(own, outcome) };
    }
    return this.#relayingClaim(listenId);
  }

  /** Applies one change-log entry about test listens. */
  async apply(entry: LogEntry): Promise<void> {
    const { op, listen: listenId = '' } = entry.fields;
    if (op === 'listen') {
      const record = JSON.parse(entry.fields.listen as string) as ListenRecord;
      this.#mirror.open(record, record.expiresAt - this.#context.redisNow());
      return;
    }
    const own = this.#own.get(listenId);
    if (op === 'unlisten') {
      const reason = entry.fields.reason;
      this.#mirror.close(listenId, reason === 'replaced' ? 'cancelled' : reason as 'received' | 'timedOut' | 'cancelled');
      if (own?.state !== 'listening') return;
      if (reason === 'received') this.#claimed(own);
      else if (reason === 'timedOut') this.#finish(own, { status: 'timedOut' });
      else this.#finish(own, { status: 'cancelled', reason: reason === 'replaced' ? 'replaced' : 'cancelled' });
      return;
    }
    if ((op !== 'arrived' && op !== 'settled') || own === undefined || own.state === 'ended') return;
    const text = await this.#context.read(this.#context.keys.relay(listenId, op), 'reading a relayed test call');
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
    for (const record of records) this.#mirror.open(record, record.expiresAt - this.#context.redisNow());
    for (const own of this.#own.values()) {
      if (own.state !== 'listening' || live.has(own.id)) continue;
      this.#finish(own, Date.now() >= own.expiresAt ? { status: 'timedOut' } : { status: 'cancelled', reason: 'cancelled' });
    }
  }

  /** Ends this instance's listens (best effort in Redis) and stops every timer. */
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
    let reply: unknown[];
    try {
      reply = await this.#context.change(END, this.#scriptKeys(), [own.id, reason], doing);
    } catch (error) {
      // Without Redis the listen still ends here; in the store it lapses with its window.
      this.#mirror.close(own.id, reason);
      this.#finish(own, result);
      throw error;
    }
    if (reply[0] !== 'OK') return;
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

  /** A claim on an instance that does not hold the listen: run data and outcome go through Redis, in order. */
  #relayingClaim(listenId: string): TestCallClaim {
    let queue = Promise.resolve();
    const send = (step: 'arrived' | 'settled', payload: () => string): void => {
      queue = queue.then(() => this.#context.change(RELAY, [this.#context.keys.relay(listenId, step)],
        [listenId, step, payload(), String(RELAY_TTL_MS)], 'relaying a test call to the instance that listens'))
        .then(() => undefined, (error: unknown) => this.#context.report(error, 'relaying a test call to the instance that listens'));
    };
    return {
      arrived: (run) => send('arrived', () => encodeRun(run)),
      settled: (outcome) => send('settled', () => encodeOutcome(outcome)),
    };
  }
}
