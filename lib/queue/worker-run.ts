/**
 * The `WebhookRun` a worker hands the host's executor: the same fields and trigger item as in process, plus the job's
 * id, the attempt and `progress()`. `respond()` goes to the web instance that waits for it; as in process, the
 * first answer wins and a later one (or one in a mode that does not answer from the workflow) is only reported.
 */
import { WebhookError } from '../core/errors.js';
import type { CallEvents } from '../core/events.js';
import type { ExecutionResult, HttpMethod, TriggerItem, WebhookKind, WebhookRun, WorkflowResponse } from '../core/types.js';
import type { RunReplay } from '../core/history.js';
import { RunWaits } from '../webhooks/waiting/run-waits.js';
import type { WaitingSettings } from '../webhooks/waiting/settings.js';
import type { RunResume, SuspendedWait, SuspendOptions } from '../core/waits.js';
import type { WebhookJobData } from './job-data.js';

/** A run on a worker: a `WebhookRun` with what a retried or repeated run needs to keep its side effects idempotent. */
export interface QueuedWebhookRun<Body = any> extends WebhookRun<Body> {
  /** The BullMQ job's id: the same for every attempt, and for a sender's repeat of the call. */
  jobId: string;
  /** 1 for the first try; 2, 3, … after a failure or after the worker running it died. */
  attempt: number;
  /** Reports progress (a number or an object), readable through `queue.status(jobId)` and dashboards. */
  progress(value: number | object): Promise<void>;
}

export interface RunWiring {
  data: WebhookJobData;
  jobId: string;
  attempt: number;
  /** The job's trigger item, as the web instance built it, its files read back. */
  items: TriggerItem[];
  signal: AbortSignal;
  /** Sends the first respond() answer on; undefined when nobody waits for one. */
  send: ((response: WorkflowResponse) => void) | undefined;
  report(error: WebhookError): void;
  progress(value: number | object): Promise<void>;
  /** The worker's waiting settings (`waiting` option); undefined: a run that asks to wait is told what is missing. */
  waiting: WaitingSettings | undefined;
  /** Public base of the resume addresses (the web instances' `publicUrl`). */
  baseUrl: string;
}

/** Worker runs are not watched by any call's events. */
const NO_EVENTS: CallEvents = { active: false, emit: () => undefined, within: (run) => run() };

export class QueuedRun implements QueuedWebhookRun {
  readonly workflowId: string;
  readonly workflowName: string | undefined;
  readonly nodeName: string;
  readonly mode: WebhookKind;
  readonly method: HttpMethod;
  readonly outputIndex: number;
  items: TriggerItem[];
  readonly callId: string;
  readonly jobId: string;
  readonly attempt: number;
  readonly signal: AbortSignal;
  readonly #send: RunWiring['send'];
  readonly #answersFromWorkflow: boolean;
  readonly #report: RunWiring['report'];
  readonly #progress: RunWiring['progress'];
  #responded = false;
  readonly #waits: RunWaits;
  resume?: RunResume;
  replay?: RunReplay;
  /** The first respond() answer, kept with the job's result. */
  response: WorkflowResponse | undefined;

  constructor(wiring: RunWiring) {
    const { data } = wiring;
    this.workflowId = data.workflowId;
    this.workflowName = data.workflowName;
    this.nodeName = data.nodeName;
    this.mode = data.mode;
    this.method = data.method;
    this.outputIndex = data.outputIndex;
    this.items = wiring.items;
    this.callId = data.callId;
    this.jobId = wiring.jobId;
    this.attempt = wiring.attempt;
    this.signal = wiring.signal;
    this.#answersFromWorkflow = data.responseMode === 'responseNode';
    this.#send = wiring.send;
    this.#report = wiring.report;
    this.#progress = wiring.progress;
    this.respond = this.respond.bind(this);
    this.progress = this.progress.bind(this);
    if (data.resume !== undefined) this.resume = data.resume;
    if (data.replay !== undefined) this.replay = data.replay;
    this.#waits = new RunWaits(wiring.waiting, {
      run: this, baseUrl: wiring.baseUrl, workflowId: data.workflowId, workflowName: data.workflowName, nodeName: data.nodeName,
      mode: data.mode, callId: data.callId, events: NO_EVENTS, resume: data.resume,
    });
  }

  get resumeUrl(): string {
    return this.#waits.resumeUrlFor('');
  }

  resumeUrlFor(suffix: string): string {
    return this.#waits.resumeUrlFor(suffix);
  }

  /** A worker's run cannot wait in the run: the call arrives at a web instance, which cannot hand it to this process. */
  waitForCall(): Promise<TriggerItem> {
    return Promise.reject(new WebhookError('WAIT_NOT_CONFIGURED', 'run.waitForCall() cannot wait on a queue worker: the resume call arrives at a web instance.', {
      hint: 'Use run.suspend() in queue mode: the resumed run is queued like any other.',
    }));
  }

  suspend(options?: SuspendOptions): Promise<SuspendedWait> {
    try {
      return this.#waits.suspend(options);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** The run's outcome: its end releases its resume address. */
  started(ended: Promise<ExecutionResult>): void {
    this.#waits.started(ended);
  }

  respond(response: WorkflowResponse): void {
    if (!this.#answersFromWorkflow) {
      this.#report(new WebhookError('WORKFLOW_INVALID_RESPONSE',
        'respond() was called, but the Webhook node\'s responseMode is not "responseNode"; the response was ignored.'));
      return;
    }
    if (this.#responded) {
      this.#report(new WebhookError('WORKFLOW_INVALID_RESPONSE', 'respond() was called after the call was answered; this response was ignored.'));
      return;
    }
    this.#responded = true;
    this.response = response;
    this.#send?.(response);
  }

  progress(value: number | object): Promise<void> {
    return this.#progress(value);
  }
}
