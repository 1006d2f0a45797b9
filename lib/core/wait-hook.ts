/**
 * The hook through which the run stage gets a run's waiting side (resume address, waitForCall, suspend) without
 * importing the waiting addresses: the middleware passes the waiting room's own in. Internal: not re-exported.
 */
import type { CallEvents } from './events.js';
import type { TriggerItem, WebhookKind, WebhookRun } from './types.js';
import type { RunResume, SuspendedWait, SuspendOptions, WaitForCallOptions } from './waits.js';

/** What a run's waiting side knows of it. */
export interface RunIdentity {
  run: WebhookRun;
  baseUrl: string;
  workflowId: string;
  workflowName: string | undefined;
  nodeName: string;
  mode: WebhookKind;
  callId: string;
  events: CallEvents;
  /** A resumed run keeps its address. */
  resume: RunResume | undefined;
}

/** The waiting side of one run, as the run stage uses it; the waiting addresses (lib/webhooks/waiting/run-waits.ts) make it. */
export interface RunWaitsSide {
  resumeUrlFor(suffix: string): string;
  waitForCall(options?: WaitForCallOptions): Promise<TriggerItem>;
  suspend(options?: SuspendOptions): Promise<SuspendedWait>;
  /** The run started; `ended` settles with its outcome (what a resume call answered with lastNode waits for). */
  started(ended: Promise<never>): void;
}

/** Makes a run's waiting side on its first use: the hook the middleware hands the run stage. */
export type OpenRunWaits = (identity: RunIdentity) => RunWaitsSide;
