/**
 * The editor's test listens, one per workflow, and the server-sent event streams that watch them. Every tab that
 * shows a workflow subscribes to its stream; the listen's own events (listening, callArrived, completed or failed,
 * ended) become `state` events, and a `countdown` event is pushed every second while it listens, so every tab
 * shows the same window and the same end without asking again. A run of the listen that waits for a call (the
 * middleware's `waiting`, `resumed` and `expired` events) becomes a `wait` event with its resume address.
 */
import type { ServerResponse } from 'node:http';
import type {
  ExecutionResult, TestListenEvent, TestListenHandle, WebhookEvent, WebhookRegistry, WebhookRun, WorkflowWebhooks,
} from 'workflow-webhooks';
import type { CountdownEvent, ListenState, WaitDto } from './protocol.js';
import { runDto } from './run-data.js';

/** One listen: its handle once it started, what it captured so far, and its countdown timer. */
interface Listen {
  handle?: TestListenHandle;
  state: ListenState;
  windowSeconds: number;
  run?: WebhookRun;
  outcome: { output?: ExecutionResult; error?: Error };
  timer?: NodeJS.Timeout;
}

interface Session {
  current?: Listen;
  /** The resume address of the current listen's run, once it waits. */
  wait?: WaitDto;
  streams: Set<ServerResponse>;
}

type WaitEvent = Extract<WebhookEvent, { type: 'waiting' | 'resumed' | 'expired' }>;

const HEARTBEAT_MS = 20_000;

function secondsLeft(expiresAt: number): number {
  return Math.max(0, Math.ceil((expiresAt - Date.now()) / 1000));
}

function untilNextSecond(expiresAt: number): number {
  const rest = (expiresAt - Date.now()) % 1000;
  return (rest <= 0 ? 1000 : rest) + 5;
}

function send(stream: ServerResponse, event: string, data: unknown): void {
  stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export class EditorListens {
  readonly #registry: WebhookRegistry;
  readonly #sessions = new Map<string, Session>();

  constructor(registry: WebhookRegistry) {
    this.#registry = registry;
  }

  #session(workflowId: string): Session {
    let session = this.#sessions.get(workflowId);
    if (session === undefined) {
      session = { streams: new Set() };
      this.#sessions.set(workflowId, session);
    }
    return session;
  }

  /** The state a tab that opens now should show (the countdown recomputed). */
  state(workflowId: string): ListenState {
    const state = this.#sessions.get(workflowId)?.current?.state ?? { state: 'idle' };
    return state.state === 'listening' ? { ...state, secondsLeft: secondsLeft(state.expiresAt) } : state;
  }

  /** Streams the workflow's listen state to one tab until it goes away. */
  subscribe(workflowId: string, stream: ServerResponse): void {
    stream.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      // A proxy that buffers would hold the countdown back.
      'x-accel-buffering': 'no',
    });
    const session = this.#session(workflowId);
    session.streams.add(stream);
    send(stream, 'state', this.state(workflowId));
    send(stream, 'wait', session.wait ?? null);
    const heartbeat = setInterval(() => stream.write(': still here\n\n'), HEARTBEAT_MS).unref();
    stream.on('close', () => {
      clearInterval(heartbeat);
      session.streams.delete(stream);
    });
  }

  /** Starts listening with the workflow as the editor has it now (its unsaved parameters too), replacing an earlier listen. */
  async start(workflow: WorkflowWebhooks, timeoutMs: number): Promise<ListenState> {
    const session = this.#session(workflow.workflowId);
    const listen: Listen = { state: { state: 'idle' }, windowSeconds: Math.round(timeoutMs / 1000), outcome: {} };
    const previous = session.current;
    // Set before listening: the listen being replaced reports its end while listenForTest runs, and that end is old news.
    session.current = listen;
    this.#publishWait(session, undefined);
    try {
      listen.handle = await this.#registry.listenForTest(workflow, { timeoutMs, onEvent: (event) => this.#onEvent(session, listen, event) });
    } catch (error) {
      session.current = previous;
      throw error;
    }
    if (listen.state.state === 'idle') this.#listening(session, listen, listen.handle.listenId, listen.handle.expiresAt);
    // The result settles after `ended`; a registry failure here (Redis gone) must not go unhandled.
    listen.handle.result.catch(() => this.#end(session, listen, 'cancelled'));
    if (previous !== undefined && previous !== listen) clearTimeout(previous.timer);
    return this.state(workflow.workflowId);
  }

  /** Stops the workflow's listen, if it still listens. */
  async cancel(workflowId: string): Promise<boolean> {
    const listen = this.#sessions.get(workflowId)?.current;
    if (listen?.handle === undefined || listen.state.state !== 'listening') return false;
    await listen.handle.cancel();
    return true;
  }

  /**
   * The middleware's events (its `onEvent` option), for the waits of test runs: the listen's own run, and, by its
   * wait id, a run resumed from it that waits again at the same address.
   */
  webhookEvent(event: WebhookEvent): void {
    if ((event.type !== 'waiting' && event.type !== 'resumed' && event.type !== 'expired') || event.mode !== 'test') return;
    const session = this.#sessions.get(event.workflowId);
    const run = session?.current?.run;
    if (session === undefined || run === undefined) return;
    const known = session.wait?.waitId === event.waitId;
    if (event.type === 'waiting' && (known || run.callId === event.callId)) void this.#waiting(session, run, event);
    else if (event.type !== 'waiting' && known) this.#publishWait(session, { ...session.wait as WaitDto, status: event.type });
  }

  /** The address to show: the registry's entry says its suffix and methods; the run signs it. */
  async #waiting(session: Session, run: WebhookRun, event: WaitEvent & { type: 'waiting' }): Promise<void> {
    const listen = session.current;
    const entry = await this.#registry.getWait?.(event.waitId).catch(() => undefined);
    if (session.current !== listen) return;
    const methods = [entry?.wait?.httpMethod ?? 'POST'].flat().map(String);
    const resumeUrl = run.resumeUrlFor(entry?.wait?.suffix ?? '');
    this.#publishWait(session, { waitId: event.waitId, form: event.form, status: 'waiting', resumeUrl, methods, expiresAt: event.expiresAt });
  }

  #publishWait(session: Session, wait: WaitDto | undefined): void {
    if (wait === undefined && session.wait === undefined) return;
    session.wait = wait;
    for (const stream of session.streams) send(stream, 'wait', wait ?? null);
  }

  #onEvent(session: Session, listen: Listen, event: TestListenEvent): void {
    switch (event.type) {
      case 'listening':
        this.#listening(session, listen, event.listenId, event.expiresAt);
        break;
      case 'callArrived':
        clearTimeout(listen.timer);
        listen.run = event.run;
        this.#publish(session, listen, { state: 'running', listenId: event.listenId, run: runDto(event.run) });
        break;
      case 'completed':
      case 'failed':
        listen.run = event.run;
        listen.outcome = event.type === 'completed' ? { output: event.output } : { error: event.error };
        this.#publish(session, listen, { state: 'running', listenId: event.listenId, run: runDto(event.run, listen.outcome) });
        break;
      case 'ended':
        // A replaced listen is no longer current, so only a cancel from a tab (or the registry closing) reaches the page.
        this.#end(session, listen, event.status);
        break;
    }
  }

  #listening(session: Session, listen: Listen, listenId: string, expiresAt: number): void {
    this.#publish(session, listen, { state: 'listening', listenId, expiresAt, secondsLeft: secondsLeft(expiresAt), windowSeconds: listen.windowSeconds });
    clearTimeout(listen.timer);
    // Each tick lands just after the whole second it announces, so the count moves once a second, never twice or not at all.
    const tick = (): void => {
      if (listen.state.state !== 'listening' || session.current !== listen) return;
      const countdown: CountdownEvent = { listenId, secondsLeft: secondsLeft(expiresAt) };
      for (const stream of session.streams) send(stream, 'countdown', countdown);
      if (countdown.secondsLeft > 0) listen.timer = setTimeout(tick, untilNextSecond(expiresAt)).unref();
    };
    listen.timer = setTimeout(tick, untilNextSecond(expiresAt)).unref();
  }

  #end(session: Session, listen: Listen, status: 'received' | 'timedOut' | 'cancelled'): void {
    clearTimeout(listen.timer);
    if (listen.state.state === 'ended') return;
    const listenId = 'listenId' in listen.state ? listen.state.listenId : listen.handle?.listenId ?? '';
    const ended: ListenState = { state: 'ended', listenId, status };
    if (status === 'cancelled') ended.reason = 'cancelled';
    if (listen.run !== undefined) ended.run = runDto(listen.run, listen.outcome);
    this.#publish(session, listen, ended);
  }

  /** Keeps the listen's state and tells every tab, unless a newer listen of the workflow has taken over. */
  #publish(session: Session, listen: Listen, state: ListenState): void {
    listen.state = state;
    if (session.current !== listen) return;
    for (const stream of session.streams) send(stream, 'state', state);
  }
}
