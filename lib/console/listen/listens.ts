/**
 * The console's test listens, one per workflow: started from a page, shown on every page. The listen's own events
 * (listening, call arrived, completed or failed, ended) become `listen` snapshots, a `countdown` goes out every
 * second while it listens, and a test run that waits for a call (the middleware's waiting, resumed and expired
 * events) adds its resume address. The files of the captured call are kept for download until the next listen.
 * The call's secrets are found when it arrives, and every snapshot of it is shown redacted.
 */
import type { WebhookEvent } from '../../core/events.js';
import { PayloadInvalidError } from '../../core/errors.js';
import { callSecrets } from '../../webhooks/guards/secrets.js';
import type { CapturedRun, TestListenEvent, TestListenHandle, WebhookRegistry } from '../../webhooks/registry/contract.js';
import type { ExecutionResult, WebhookMiddlewareSettings, WebhookRun, WorkflowWebhooks } from '../../core/types.js';
import type { ConsoleEvent, ListenSnapshot, ListenState, WaitDto } from '../protocol.js';
import { captureFiles, type CapturedFile, type CapturedFiles } from './captured-files.js';
import { planListen, type ListenPlan } from './listen-plan.js';
import { runDto, type CallView } from './run-view.js';

interface Listen {
  handle?: TestListenHandle;
  state: ListenState;
  windowSeconds: number;
  plan: ListenPlan;
  run?: CapturedRun;
  /** The captured call's secrets and address, from its arrival on. */
  view?: CallView;
  files: CapturedFiles;
  outcome: { output?: ExecutionResult; error?: Error; waitedMs?: number };
  /** When the captured call arrived: how long its caller waited is measured from here. */
  arrivedAt?: number;
  timer?: NodeJS.Timeout;
}

export interface ConsoleListensOptions {
  registry: WebhookRegistry;
  /** The middleware's settings: its test prefix and credentials resolver. */
  settings: WebhookMiddlewareSettings;
  maxFileBytes: number;
}

interface Session {
  workflowId: string;
  current?: Listen;
  wait: WaitDto | null;
  refused: ListenSnapshot['refused'];
}

/** Test calls under way (their `received` events), so that a refusal can be told apart from a production call's. */
const TEST_CALLS_KEPT = 100;

/** Without a deadline of the middleware's own, a caller still meets proxies' (Cloudflare's, the hosted offering's): 100 s. */
const NO_DEADLINE_LIMIT_MS = 100_000;
const limitOf = (deadlineMs: number): number => (deadlineMs > 0 && Number.isFinite(deadlineMs) ? deadlineMs : NO_DEADLINE_LIMIT_MS);

const secondsLeft = (expiresAt: number): number => Math.max(0, Math.ceil((expiresAt - Date.now()) / 1000));

/** Each tick lands just after the whole second it announces, so the count moves once a second. */
function untilNextSecond(expiresAt: number): number {
  const rest = (expiresAt - Date.now()) % 1000;
  return (rest <= 0 ? 1000 : rest) + 5;
}

export class ConsoleListens {
  readonly #registry: WebhookRegistry;
  readonly #settings: WebhookMiddlewareSettings;
  readonly #maxFileBytes: number;
  readonly #send: (event: ConsoleEvent) => void;
  readonly #sessions = new Map<string, Session>();
  readonly #testCalls = new Set<string>();

  constructor(options: ConsoleListensOptions, send: (event: ConsoleEvent) => void) {
    this.#registry = options.registry;
    this.#settings = options.settings;
    this.#maxFileBytes = options.maxFileBytes;
    this.#send = send;
  }

  /** Every workflow's latest listen, the countdown recomputed for a page opening now. */
  snapshots(): ListenSnapshot[] {
    return [...this.#sessions.values()].filter((session) => session.current !== undefined).map((session) => this.#snapshot(session));
  }

  /** A file of a listen that is still its workflow's latest. */
  file(listenId: string, key: string): CapturedFile | undefined {
    for (const session of this.#sessions.values()) {
      if (session.current?.handle?.listenId === listenId) return session.current.files.get(key);
    }
    return undefined;
  }

  /**
   * Starts listening, replacing the workflow's earlier listen. Rejects as the registry does (409 on a conflict).
   * `webhookBase`: where the middleware is, as the console that starts the listen reaches it.
   */
  async start(workflow: WorkflowWebhooks, timeoutMs: number, webhookBase: string): Promise<ListenSnapshot> {
    const plan = await planListen(workflow, this.#settings, webhookBase);
    let session = this.#sessions.get(workflow.workflowId);
    if (session === undefined) {
      session = { workflowId: workflow.workflowId, wait: null, refused: null };
      this.#sessions.set(workflow.workflowId, session);
    }
    const listen: Listen = { state: { state: 'idle' }, windowSeconds: Math.round(timeoutMs / 1000), plan, files: new Map(), outcome: {} };
    const previous = session.current;
    // Set before listening: the listen being replaced reports its end while listenForTest runs, and that end is old news.
    session.current = listen;
    session.wait = null;
    session.refused = null;
    const active = session;
    try {
      listen.handle = await this.#registry.listenForTest(workflow, { timeoutMs, onEvent: (event) => this.#onEvent(active, listen, event) });
    } catch (error) {
      session.current = previous;
      throw error;
    }
    if (previous !== undefined) clearTimeout(previous.timer);
    if (listen.state.state === 'idle') this.#listening(session, listen, listen.handle.listenId, listen.handle.expiresAt);
    // The result settles after `ended`; a registry failure here (Redis gone) must not go unhandled.
    listen.handle.result.catch(() => this.#end(active, listen, 'cancelled'));
    return this.#snapshot(session);
  }

  /** Stops the workflow's listen; false when it was not listening. */
  async stop(workflowId: string): Promise<boolean> {
    const listen = this.#sessions.get(workflowId)?.current;
    if (listen?.handle === undefined || listen.state.state !== 'listening') return false;
    await listen.handle.cancel();
    return true;
  }

  /** Stops every listen (the console is closing). */
  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map(async (session) => {
      clearTimeout(session.current?.timer);
      if (session.current?.state.state === 'listening') await session.current.handle?.cancel().catch(() => undefined);
    }));
  }

  /** The middleware's events, for the waits of the listens' own runs (and of runs resumed from them that wait again). */
  webhookEvent(event: WebhookEvent): void {
    if (event.type === 'received' || event.type === 'rejected') {
      this.#testCall(event);
      return;
    }
    if ((event.type !== 'waiting' && event.type !== 'resumed' && event.type !== 'expired') || event.mode !== 'test') return;
    const session = this.#sessions.get(event.workflowId);
    const run = session?.current?.run;
    if (session === undefined || run === undefined) return;
    const known = session.wait?.waitId === event.waitId;
    if (event.type === 'waiting' && (known || run.callId === event.callId)) {
      void this.#waiting(session, run, event.waitId, event.form, event.expiresAt);
    } else if (event.type !== 'waiting' && known && session.wait !== null) {
      session.wait = { ...session.wait, status: event.type };
      this.#publish(session);
    }
  }

  /** A test call refused by its payload schema while its workflow listens: the page shows it, and the listen goes on. */
  #testCall(event: Extract<WebhookEvent, { type: 'received' | 'rejected' }>): void {
    if (event.type === 'received') {
      if (event.kind !== 'test') return;
      if (this.#testCalls.size >= TEST_CALLS_KEPT) this.#testCalls.delete(this.#testCalls.values().next().value as string);
      this.#testCalls.add(event.callId);
      return;
    }
    if (!this.#testCalls.delete(event.callId) || !(event.error instanceof PayloadInvalidError) || event.workflowId === undefined) return;
    const session = this.#sessions.get(event.workflowId);
    if (session?.current?.state.state !== 'listening') return;
    session.refused = { at: Date.now(), nodeName: event.nodeName, message: event.error.message, errors: [...event.error.errors] };
    this.#publish(session);
  }

  async #waiting(session: Session, run: CapturedRun, waitId: string, form: WaitDto['form'], expiresAt: number): Promise<void> {
    // Only a run of this instance has a resume address to give; one relayed from another instance is its data only
    // (this instance's events name it only when a call here reused its x-request-id).
    const { resumeUrlFor } = run as Partial<WebhookRun>;
    if (typeof resumeUrlFor !== 'function') return;
    const listen = session.current;
    const entry = await this.#registry.getWait?.(waitId).catch(() => undefined);
    if (session.current !== listen) return;
    const methods = [entry?.wait?.httpMethod ?? 'POST'].flat().map((method) => String(method).toUpperCase());
    session.wait = { waitId, form, status: 'waiting', resumeUrl: resumeUrlFor.call(run, entry?.wait?.suffix ?? ''), methods, expiresAt };
    this.#publish(session);
  }

  #onEvent(session: Session, listen: Listen, event: TestListenEvent): void {
    const listenId = event.listenId;
    switch (event.type) {
      case 'listening':
        this.#listening(session, listen, listenId, event.expiresAt);
        break;
      case 'callArrived': {
        clearTimeout(listen.timer);
        listen.run = event.run;
        listen.arrivedAt = Date.now();
        const view = this.#viewOf(listen, event.run);
        listen.files = captureFiles(event.run.items, this.#maxFileBytes, view.secrets);
        this.#set(session, listen, { state: 'running', listenId, run: runDto(event.run, listenId, listen.files, view) });
        break;
      }
      case 'completed':
      case 'failed':
        listen.run = event.run;
        listen.outcome = event.type === 'completed' ? { output: event.output } : { error: event.error };
        if (listen.arrivedAt !== undefined) listen.outcome.waitedMs = Date.now() - listen.arrivedAt;
        this.#set(session, listen, { state: 'running', listenId, run: runDto(event.run, listenId, listen.files, this.#viewOf(listen, event.run), listen.outcome) });
        break;
      case 'ended':
        this.#end(session, listen, event.status);
        break;
    }
  }

  /**
   * The call's secrets, found once from the items as they arrived: a workflow that changes the run's items later
   * cannot move a secret out of sight.
   */
  #viewOf(listen: Listen, run: CapturedRun): CallView {
    listen.view ??= {
      secrets: callSecrets(run.items, listen.plan.checked.get(run.nodeName)),
      testBase: listen.plan.testBase,
      path: listen.plan.paths.get(`${run.nodeName} ${run.method}`),
      callerWaits: listen.plan.callerWaits.has(run.nodeName),
      limitMs: limitOf(this.#settings.responseTimeoutMs),
    };
    return listen.view;
  }

  #listening(session: Session, listen: Listen, listenId: string, expiresAt: number): void {
    this.#set(session, listen, { state: 'listening', listenId, expiresAt, secondsLeft: secondsLeft(expiresAt), windowSeconds: listen.windowSeconds });
    clearTimeout(listen.timer);
    const tick = (): void => {
      if (listen.state.state !== 'listening' || session.current !== listen) return;
      const left = secondsLeft(expiresAt);
      this.#send({ type: 'countdown', workflowId: session.workflowId, listenId, secondsLeft: left });
      if (left > 0) listen.timer = setTimeout(tick, untilNextSecond(expiresAt)).unref();
    };
    listen.timer = setTimeout(tick, untilNextSecond(expiresAt)).unref();
  }

  #end(session: Session, listen: Listen, status: 'received' | 'timedOut' | 'cancelled'): void {
    clearTimeout(listen.timer);
    if (listen.state.state === 'ended') return;
    const listenId = 'listenId' in listen.state ? listen.state.listenId : listen.handle?.listenId ?? '';
    const ended: ListenState = { state: 'ended', listenId, status };
    if (listen.run !== undefined) ended.run = runDto(listen.run, listenId, listen.files, this.#viewOf(listen, listen.run), listen.outcome);
    this.#set(session, listen, ended);
  }

  /** Keeps the listen's state and tells every page, unless a newer listen of the workflow has taken over. */
  #set(session: Session, listen: Listen, state: ListenState): void {
    listen.state = state;
    if (session.current === listen) this.#publish(session);
  }

  #publish(session: Session): void {
    this.#send({ type: 'listen', ...this.#snapshot(session) });
  }

  #snapshot(session: Session): ListenSnapshot {
    const state = session.current?.state ?? { state: 'idle' };
    const listen = state.state === 'listening' ? { ...state, secondsLeft: secondsLeft(state.expiresAt) } : state;
    return { workflowId: session.workflowId, listen, wait: session.wait, refused: session.refused };
  }
}
