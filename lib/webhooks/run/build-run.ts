/**
 * Dispatch: build the trigger's output item and the run handed to the executor. With several methods the
 * item goes out on the output of the call's method only.
 */
import type { IncomingMessage } from 'node:http';
import type { WebhookMatch } from '../request/match.js';
import type { Payload } from '../payload/index.js';
import type { RequestTarget } from '../request/target.js';
import type { CallEvents } from '../../core/events.js';
import type { Item, TriggerItem, TriggerJson, WebhookRun, WorkflowResponse } from '../../core/types.js';
import type { RunReplay } from '../../core/history.js';
import type { RunResume, SuspendedWait, SuspendOptions, WaitForCallOptions } from '../../core/waits.js';
import type { OpenRunWaits, RunWaitsSide } from '../../core/wait-hook.js';
import type { WebhookError } from '../../core/errors.js';
import { ignoreRespond } from './report.js';

export interface RunParts {
  req: IncomingMessage;
  target: RequestTarget;
  match: WebhookMatch;
  query: Record<string, unknown>;
  payload: Payload;
  /** Public base of the addresses, without trailing slash (origin + mount path). */
  baseUrl: string;
  prefix: string;
  /** The workflow's answer, for responseNode; other modes get one made on first use that reports misuse. */
  respond: ((response: WorkflowResponse) => void) | undefined;
  /** Where the run's failures go (onWorkflowError or the logger). */
  report: (error: WebhookError) => void;
  jwtPayload?: Record<string, unknown> | undefined;
  /**
   * The call: its id and the run's signal, each read when the run first asks for it (most runs never do, and a UUID
   * or an AbortController is then never made).
   */
  call: RunCall;
  events: CallEvents;
  /**
   * Makes the run's waiting side on first use: the waiting addresses' own, passed in by the middleware, so this
   * stage never imports them. A middleware without waitingSecret passes it too: the run is told what is missing.
   */
  openWaits: OpenRunWaits;
  /** A run resumed from `suspend()`. */
  resume?: RunResume | undefined;
}

/** What a run is made of besides its trigger item: a call's parts, or a kept call's (a replay, which has no request). */
export type RunSource = Pick<RunParts, 'match' | 'baseUrl' | 'respond' | 'report' | 'call' | 'events' | 'openWaits' | 'resume'> & {
  /** A replay of a kept call: which, when it first came, who replayed it. */
  replay?: RunReplay | undefined;
};

export interface RunCall {
  readonly callId: string;
  readonly signal: AbortSignal;
}

export function buildTriggerItem(parts: RunParts): Item {
  const { req, match, payload } = parts;
  const json: TriggerJson = {
    // The request's own headers object, as the known platform hands it on (Node makes one per request): a copy of
    // it would cost every call.
    headers: req.headers,
    params: match.params,
    query: parts.query,
    body: payload.body,
    webhookUrl: `${parts.baseUrl}/${parts.prefix}/${match.webhook.path}`,
    executionMode: match.webhook.kind,
  };
  if (parts.jwtPayload !== undefined) json.jwtPayload = parts.jwtPayload;
  if (payload.signature !== undefined) json.signature = payload.signature;
  return payload.binary === undefined ? { json } : { json, binary: payload.binary };
}

/**
 * The run handed to the executor. A class rather than a literal because of `signal`: a getter written in an object
 * literal costs a slow object creation on every call, one on a prototype costs nothing until it is read.
 */
class Run implements WebhookRun {
  workflowId: string;
  workflowName: string | undefined;
  nodeName: string;
  mode: WebhookRun['mode'];
  method: WebhookRun['method'];
  outputIndex: number;
  items: WebhookRun['items'];
  #respond: WebhookRun['respond'] | undefined;
  readonly #report: (error: WebhookError) => void;
  resume?: RunResume;
  replay?: RunReplay;
  readonly #call: RunCall;
  readonly #baseUrl: string;
  readonly #events: CallEvents;
  readonly #openWaits: OpenRunWaits;
  #waits: RunWaitsSide | undefined;
  #ended: Promise<unknown> | undefined;

  constructor(parts: RunSource, item: Item) {
    const { webhook } = parts.match;
    this.workflowId = webhook.workflowId;
    this.workflowName = webhook.workflowName;
    this.nodeName = webhook.nodeName;
    this.mode = webhook.kind;
    this.method = webhook.method;
    this.outputIndex = webhook.outputIndex;
    this.items = [item] as WebhookRun['items'];
    this.#respond = parts.respond;
    this.#report = parts.report;
    this.#call = parts.call;
    this.#baseUrl = parts.baseUrl;
    this.#events = parts.events;
    this.#openWaits = parts.openWaits;
    if (parts.resume !== undefined) this.resume = parts.resume;
    if (parts.replay !== undefined) this.replay = parts.replay;
  }

  get callId(): string {
    return this.#call.callId;
  }

  /** A getter, so that a run that never answers itself (not responseNode) gets no closure made for it. */
  get respond(): WebhookRun['respond'] {
    return this.#respond ??= ignoreRespond(this.#report);
  }

  /** A call resuming this run's in-run wait with responseNode answers through its own respond(). */
  set respond(respond: WebhookRun['respond']) {
    this.#respond = respond;
  }

  /** Made on first use: most workflows never look at it, and an AbortController per call is not free. */
  get signal(): AbortSignal {
    return this.#call.signal;
  }

  get resumeUrl(): string {
    return this.#waitsOf().resumeUrlFor('');
  }

  resumeUrlFor(suffix: string): string {
    return this.#waitsOf().resumeUrlFor(suffix);
  }

  waitForCall(options?: WaitForCallOptions): Promise<TriggerItem> {
    try {
      return this.#waitsOf().waitForCall(options);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  suspend(options?: SuspendOptions): Promise<SuspendedWait> {
    try {
      return this.#waitsOf().suspend(options);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** The run's outcome promise, once the middleware started it: what a resume call answered with lastNode waits for. */
  started(ended: Promise<unknown>): void {
    this.#ended = ended;
    // A resumed run holds its address: its end must say so (finished), whether or not it waits again.
    if (this.resume !== undefined) this.#waitsOf();
    else this.#waits?.started(ended as Promise<never>);
  }

  /** Made on first use: most runs never wait. */
  #waitsOf(): RunWaitsSide {
    if (this.#waits === undefined) {
      this.#waits = this.#openWaits({
        run: this, baseUrl: this.#baseUrl, workflowId: this.workflowId, workflowName: this.workflowName, nodeName: this.nodeName,
        mode: this.mode, callId: this.callId, events: this.#events, resume: this.resume,
      });
      if (this.#ended !== undefined) this.#waits.started(this.#ended as Promise<never>);
    }
    return this.#waits;
  }
}

/** Tells a run the middleware started it (`ended` settles with its outcome). */
export function runStarted(run: WebhookRun, ended: Promise<unknown>): void {
  if (run instanceof Run) run.started(ended);
}

export function buildRun(parts: RunParts): WebhookRun {
  return new Run(parts, buildTriggerItem(parts));
}

/** A run of a kept call's trigger item (a replay): the same run a call gets, with no request behind it. */
export function buildStoredRun(source: RunSource, item: Item): WebhookRun {
  return new Run(source, item);
}
