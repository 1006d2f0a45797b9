/**
 * The waiting side of one run: its resume address (made on first use), `waitForCall()` (the run waits here for the
 * call), `suspend()` (the run ends and a call starts a new one), and what the run's end means for its address.
 */
import { WebhookError } from '../../core/errors.js';
import type { ExecutionResult, TriggerItem, WebhookKind, WebhookRun } from '../../core/types.js';
import { errorFields } from '../../core/logger.js';
import { newWaitId, signWait } from './address.js';
import { resolveWait, type ResolvedWait } from './definition.js';
import { notConfigured, type WaitingSettings } from './settings.js';
import type { SuspendedWait, SuspendOptions, WaitEntry, WaitForCallOptions, WaitOptions } from '../../core/waits.js';
import type { OpenRunWaits, RunIdentity, RunWaitsSide } from '../../core/wait-hook.js';

/** How long a run holds its address while it runs without waiting. */
const HOLD_MS = 24 * 60 * 60 * 1000;
/** How long an ended run's address answers 409 (finished) rather than 404: a late second click is told why. */
const FINISHED_KEEP_MS = 15 * 60 * 1000;
const DEFAULT_WAIT_MS = 60_000;
/** An in-run wait's entry outlives its timeout by this much, so the run's own timer, not the store's sweep, ends it. */
const CLAIM_GRACE_MS = 5000;
const DEFAULT_SUSPEND_MS = 24 * 60 * 60 * 1000;
const MAX_SUSPEND_MS = 365 * 24 * 60 * 60 * 1000;

/** An in-run wait of this process, found by the resume call that claimed its address. */
export interface LocalWaiter {
  wait: ResolvedWait;
  /** Hands the call's item to the run; the run's end is the resume call's `lastNode` answer. */
  deliver(item: TriggerItem, respond: WebhookRun['respond'] | undefined): Promise<ExecutionResult>;
}

function duration(name: string, value: unknown, fallback: number, most: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > most) {
    throw new TypeError(`workflow-webhooks: ${name} must be a positive number of milliseconds, at most ${most}; got ${JSON.stringify(value) ?? String(value)}.`);
  }
  return value;
}

/** The wait's options as stored: plain JSON, without what only this run needs. */
function storedWait(options: WaitOptions & { timeoutMs?: unknown; expiresInMs?: unknown; state?: unknown }): WaitOptions {
  const { timeoutMs: _timeout, expiresInMs: _expires, state: _state, ...wait } = options;
  return JSON.parse(JSON.stringify(wait)) as WaitOptions;
}

/** The waiting side of a run (core/waits.ts's RunWaitsSide), made by the hook the middleware hands the run stage. */
export class RunWaits implements RunWaitsSide {
  readonly #settings: WaitingSettings | undefined;
  readonly #identity: RunIdentity;
  #waitId: string | undefined;
  #holding: Promise<unknown> | undefined;
  #suspended = false;
  #waiting = false;
  #ended: Promise<ExecutionResult> | undefined;
  #over = false;

  constructor(settings: WaitingSettings | undefined, identity: RunIdentity) {
    this.#settings = settings;
    this.#identity = identity;
    this.#waitId = identity.resume?.waitId;
  }

  resumeUrlFor(suffix: string): string {
    const settings = this.#configured();
    const waitId = this.#id(settings);
    const path = suffix === '' ? waitId : `${waitId}/${suffix.split('/').map(encodeURIComponent).join('/')}`;
    return `${this.#identity.baseUrl}/${settings.prefix}/${path}?signature=${signWait(settings.secret as Buffer, waitId, suffix)}`;
  }

  async waitForCall(options: WaitForCallOptions = {}): Promise<TriggerItem> {
    const settings = this.#configured();
    const wait = resolveWait(options, settings.limits);
    // A Wait node's time limit (fromWorkflowExport's expiresInMs) bounds an in-run wait too, when no timeoutMs is given.
    const given = options.timeoutMs ?? (options as SuspendOptions).expiresInMs;
    const timeoutMs = duration('waitForCall() timeoutMs', given, Math.min(DEFAULT_WAIT_MS, settings.maxRunMs), settings.maxRunMs === Infinity ? MAX_SUSPEND_MS : settings.maxRunMs);
    const signal = this.#identity.run.signal;
    if (signal.aborted) throw signal.reason;
    if (this.#waiting) throw new Error('run.waitForCall(): this run is waiting already; it waits for one call at a time.');
    const waitId = this.#id(settings);
    await this.#holding;
    const entry = this.#entry(waitId, 'inRun', storedWait(options), Date.now() + timeoutMs + CLAIM_GRACE_MS);
    entry.holder = settings.holder;
    let waiter!: LocalWaiter;
    const arrived = new Promise<TriggerItem>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const stop = (error: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        settings.local.delete(waitId);
        this.#waiting = false;
        reject(error);
      };
      // A call may have claimed the address just now: then its item is on the way, and the wait gives it a moment.
      const release = (why: () => unknown, expired: boolean): void => {
        void this.#put(settings, { ...entry, status: 'running', expiresAt: Date.now() + HOLD_MS }, 'waiting').then((released) => {
          if (released && expired) this.#emit({ type: 'expired', waitId, form: 'inRun', nodeName: wait.nodeName });
          if (released) stop(why());
          else setTimeout(() => stop(why()), CLAIM_GRACE_MS).unref();
        }, stop);
      };
      const onAbort = (): void => release(() => signal.reason, false);
      timer = setTimeout(() => release(() => timedOut(timeoutMs), true), timeoutMs).unref();
      signal.addEventListener('abort', onAbort, { once: true });
      waiter = {
        wait,
        deliver: (item, respond) => {
          settled = true;
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          settings.local.delete(waitId);
          this.#waiting = false;
          if (respond !== undefined) this.#identity.run.respond = respond;
          resolve(item);
          return this.#ended ?? Promise.reject(new Error('The run that waited has no outcome to answer with.'));
        },
      };
    });
    // Known here before the store says "waiting", so a call that claims the address at once finds the run.
    settings.local.set(waitId, waiter);
    this.#waiting = true;
    try {
      await this.#put(settings, entry);
    } catch (error) {
      settings.local.delete(waitId);
      this.#waiting = false;
      throw error;
    }
    this.#suspended = false;
    this.#emit({ type: 'waiting', waitId, form: 'inRun', expiresAt: entry.expiresAt - CLAIM_GRACE_MS, nodeName: wait.nodeName });
    return arrived;
  }

  async suspend(options: SuspendOptions = {}): Promise<SuspendedWait> {
    const settings = this.#configured();
    const wait = resolveWait(options, settings.limits);
    const expiresInMs = duration('suspend() expiresInMs', options.expiresInMs, DEFAULT_SUSPEND_MS, MAX_SUSPEND_MS);
    let state: unknown;
    try {
      state = options.state === undefined ? undefined : JSON.parse(JSON.stringify(options.state)) as unknown;
    } catch (error) {
      throw new TypeError(`workflow-webhooks: suspend() state must be plain JSON (${(error as Error).message}).`, { cause: error });
    }
    if (this.#waiting) throw new Error('run.suspend(): this run is waiting for a call in the run already.');
    const waitId = this.#id(settings);
    await this.#holding;
    const entry = this.#entry(waitId, 'suspended', storedWait(options), Date.now() + expiresInMs);
    if (state !== undefined) entry.state = state;
    await this.#put(settings, entry);
    this.#suspended = true;
    this.#emit({ type: 'waiting', waitId, form: 'suspended', expiresAt: entry.expiresAt, nodeName: wait.nodeName });
    return { waitId, resumeUrl: this.resumeUrlFor(wait.suffix), expiresAt: entry.expiresAt };
  }

  /** The run's outcome, for a resume call answered with it; its end releases the address. */
  started(ended: Promise<ExecutionResult>): void {
    this.#ended = ended;
    const over = (): void => this.#runOver();
    ended.then(over, over);
  }

  /** The run ended: an address it only held answers 409 for a while; one it suspended on stays waiting. */
  #runOver(): void {
    this.#over = true;
    const settings = this.#settings;
    if (this.#waitId === undefined || this.#suspended || settings?.store === undefined) return;
    const waiter = settings.local.get(this.#waitId);
    if (waiter !== undefined) settings.local.delete(this.#waitId);
    this.#waiting = false;
    const entry = this.#entry(this.#waitId, undefined, undefined, Date.now() + FINISHED_KEEP_MS);
    entry.status = 'finished';
    void this.#put(settings, entry).catch(() => undefined);
  }

  #configured(): WaitingSettings & { secret: Buffer } {
    const problem = notConfigured(this.#settings);
    if (problem !== undefined) throw problem;
    return this.#settings as WaitingSettings & { secret: Buffer };
  }

  /** The run's wait id, made and held in the store on first use (so a call before the wait hears "running"). */
  #id(settings: WaitingSettings): string {
    if (this.#waitId !== undefined) return this.#waitId;
    const waitId = newWaitId();
    this.#waitId = waitId;
    if (!this.#over) this.#holding = this.#put(settings, this.#entry(waitId, undefined, undefined, Date.now() + HOLD_MS)).catch(() => undefined);
    return waitId;
  }

  #entry(waitId: string, form: WaitEntry['form'], wait: WaitOptions | undefined, expiresAt: number): WaitEntry {
    const { workflowId, workflowName, mode, callId, resume } = this.#identity;
    const entry: WaitEntry = {
      waitId, status: form === undefined ? 'running' : 'waiting', expiresAt, workflowId, nodeName: wait?.nodeName ?? 'Wait', mode,
      startedAt: resume?.startedAt ?? Date.now(), callId,
    };
    if (workflowName !== undefined) entry.workflowName = workflowName;
    if (resume !== undefined) entry.resumedAt = resume.resumedAt;
    if (form !== undefined) entry.form = form;
    if (wait !== undefined) entry.wait = wait;
    return entry;
  }

  async #put(settings: WaitingSettings, entry: WaitEntry, expect?: WaitEntry['status']): Promise<boolean> {
    try {
      return await (settings.store as NonNullable<WaitingSettings['store']>).putWait(entry, expect);
    } catch (error) {
      if (!(error instanceof WebhookError && error.code === 'TOO_MANY_WAITING')) {
        settings.logger.error({ callId: this.#identity.callId, waitId: entry.waitId, err: errorFields(error) }, 'storing a wait entry failed');
      }
      throw error;
    }
  }

  #emit(event: { type: 'waiting'; expiresAt: number; waitId: string; form: 'inRun' | 'suspended'; nodeName: string }
    | { type: 'expired'; waitId: string; form: 'inRun'; nodeName: string }): void {
    const { events, workflowId, mode } = this.#identity;
    if (events.active) events.emit({ ...event, workflowId, mode });
  }
}
/** The hook the middleware hands the run stage: each run's waiting side, made on its first use. */
export function runWaitsOpener(settings: WaitingSettings): OpenRunWaits {
  return (identity) => new RunWaits(settings, identity);
}

function timedOut(timeoutMs: number): WebhookError {
  return new WebhookError('WAIT_TIMED_OUT', `No call arrived at the resume address within ${timeoutMs} ms.`, {
    hint: 'Catch it to go on without the call, or wait longer (timeoutMs); for waits of more than a few minutes, use run.suspend().',
  });
}
