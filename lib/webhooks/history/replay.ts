/**
 * Replays one kept call: the call is opened and checked (replayable, its webhook active now, its payload schema's
 * verdict now), its replay claimed in the store (a second needs `again`), and its run started as a call's would be:
 * in process, or handed off as a job in queue mode. The original's guards are not run again: the replaying user is
 * the authority, recorded on the run (`run.replay.by`) and on the new entry, which links to the original.
 */
import { randomUUID } from 'node:crypto';
import { toWebhookError, WebhookError } from '../../core/errors.js';
import { NO_EVENTS } from '../../core/events.js';
import type { HistoryEntry, ReplayOptions, ReplayResult } from '../../core/history.js';
import { errorFields, type WebhookLogger } from '../../core/logger.js';
import { checkPayload, type NamedValidators } from '../validate/index.js';
import type { OpenRunWaits } from '../../core/wait-hook.js';
import type { WebhookExecutor, WebhookRun, WorkflowResponse } from '../../core/types.js';
import type { RegisteredWebhook, WebhookRegistry } from '../registry/contract.js';
import { buildStoredRun } from '../run/build-run.js';
import { reportedExecution } from '../run/execute.js';
import { isHandOff } from '../run/hand-off.js';
import { runTooLong } from '../run/call-state.js';
import type { WorkflowFailureContext } from '../run/report.js';
import { KeptCall } from './kept-call.js';
import type { HistoryRecorder } from './recorder.js';
import { activeWebhook, checkReplayable, storedItem } from './replayable.js';
import { storeAnswer } from './store-calls.js';

/** What a replay needs of the middleware, made once at the factory. */
export interface ReplayContext {
  recorder: HistoryRecorder;
  registry: WebhookRegistry;
  executor: WebhookExecutor;
  openWaits: OpenRunWaits;
  schemas: NamedValidators;
  schemaWork: number;
  maxRunMs: number;
  /** Where replayed runs' resume addresses and `webhookUrl` start: the middleware's `publicUrl`, else the original call's. */
  baseUrl: string | undefined;
  productionPrefix: string;
  logger: WebhookLogger;
  onWorkflowError: ((error: WebhookError, context: WorkflowFailureContext) => void) | undefined;
  /** The middleware is shutting down: no replay starts (its answer is the middleware's SHUTTING_DOWN refusal). */
  closing: () => WebhookError | undefined;
}

export async function replayCall(context: ReplayContext, id: string, options: ReplayOptions): Promise<ReplayResult> {
  const { recorder } = context;
  const { store } = recorder.settings;
  const stopped = context.closing();
  if (stopped !== undefined) throw stopped;
  const record = await storeAnswer(() => store.get(id));
  if (record === undefined) throw notFound(id);
  const entry = recorder.opened(record);
  checkReplayable(entry);
  const webhook = await activeWebhook(context.registry, entry);
  const item = storedItem(entry, `${baseUrlOf(context, entry)}/${context.productionPrefix}/${webhook.path}`);
  if (webhook.schemas !== undefined) {
    // The schema as it is now: a call it refuses is refused again, with its findings, and nothing runs.
    const parts = { body: item.json.body, query: item.json.query as Record<string, unknown>, headers: entry.data.headers as Record<string, string>, bodyKind: entry.data.bodyKind as never };
    const checked = checkPayload(webhook, webhook.schemas, parts, context.schemas, context.schemaWork);
    if (checked !== undefined) await checked;
    item.json.body = parts.body;
    item.json.query = parts.query;
  }
  const claim = await storeAnswer(() => store.claimReplay(id, options.again === true));
  if (claim.outcome === 'missing') throw notFound(id);
  if (claim.outcome === 'replayedBefore') {
    throw new WebhookError('HISTORY_REPLAYED_BEFORE', `The kept call ${id} was replayed ${claim.replays} time(s) before.`, {
      hint: 'Replay it again only on purpose: send again: true (the console asks to confirm).',
    });
  }
  return runReplay(context, entry, webhook, item, options.by);
}

async function runReplay(context: ReplayContext, entry: HistoryEntry, webhook: RegisteredWebhook, item: ReturnType<typeof storedItem>, by: string): Promise<ReplayResult> {
  const callId = randomUUID();
  const controller = new AbortController();
  const kept = new KeptCall(context.recorder, webhook, { method: entry.method, path: entry.path, route: entry.route, waitId: undefined });
  const responses: WorkflowResponse[] = [];
  const report = (error: WebhookError): void => {
    if (context.onWorkflowError !== undefined) {
      context.onWorkflowError(error, { workflowId: webhook.workflowId, nodeName: webhook.nodeName, mode: 'production', webhook, callId, answered: true });
      return;
    }
    context.logger.error({ callId, err: errorFields(error), workflowId: webhook.workflowId, nodeName: webhook.nodeName, replayOf: entry.id },
      'workflow failed in a replay of a kept call');
  };
  const run = buildStoredRun({
    match: { webhook, params: entry.data.params as Record<string, string> }, baseUrl: baseUrlOf(context, entry), report, events: NO_EVENTS,
    respond: (response) => { responses.push(response); },
    call: { callId, signal: controller.signal }, openWaits: context.openWaits, replay: { of: entry.id, at: entry.at, by },
  }, item);
  kept.request(run, undefined, entry.data.bodyKind);
  const timer = Number.isFinite(context.maxRunMs) ? setTimeout(() => { controller.abort(runTooLong(context.maxRunMs)); }, context.maxRunMs).unref() : undefined;
  let error: WebhookError | undefined;
  try {
    await execute(context, { run, webhook, kept, signal: controller.signal, report });
  } catch (failure) {
    error = toWebhookError(failure);
    if (isHandOff(context.executor) && kept.jobId === undefined) {
      // The queue refused the job (away, too many runs, too large): nothing was stored, so nothing ran. The claim goes
      // back, and the replay can be tried again without `again`.
      await context.recorder.settings.store.giveBackReplay(entry.id).catch(() => undefined);
      throw error;
    }
  } finally {
    clearTimeout(timer);
  }
  const status = error === undefined ? responses[0]?.status ?? webhook.parameters.responseCode : error.status;
  const entryId = await (kept.finish({ status, error, requestId: callId, replayOf: entry.id, replayedBy: by }) as Promise<string>);
  const result: ReplayResult = { entryId, of: entry.id, status };
  if (error !== undefined) {
    result.code = error.code;
    result.error = { code: error.code, message: error.message };
  }
  const jobId = kept.jobId;
  if (jobId !== undefined) result.jobId = jobId;
  return result;
}

/** Runs it as the middleware would: in process, or handed off (queue mode), waiting for the outcome where a caller would. */
interface ReplayRun {
  run: WebhookRun;
  webhook: RegisteredWebhook;
  kept: KeptCall;
  signal: AbortSignal;
  report: (error: WebhookError) => void;
}

async function execute(context: ReplayContext, { run, webhook, kept, signal, report }: ReplayRun): Promise<void> {
  const stopped = new Promise<never>((_resolve, reject) => {
    signal.addEventListener('abort', () => { reject(signal.reason as Error); }, { once: true });
  });
  stopped.catch(() => undefined);
  const { executor } = context;
  if (isHandOff(executor)) {
    const awaitsOutcome = webhook.parameters.responseMode !== 'onReceived';
    const accepted = await executor.handOff(run, { responseMode: webhook.parameters.responseMode, settings: webhook.settings, awaitsOutcome });
    kept.accepted(accepted.jobId);
    if (accepted.outcome === undefined) return;
    const outcome = accepted.outcome;
    await Promise.race([reportedExecution({ run, executor: () => outcome, events: NO_EVENTS, report, onSettled: kept.settled }).outcome, stopped]);
    return;
  }
  const execution = reportedExecution({ run, executor, events: NO_EVENTS, report, onSettled: kept.settled });
  await Promise.race([execution.outcome, stopped]);
}

/** The middleware's `publicUrl`, else where the original's caller reached it. */
function baseUrlOf(context: ReplayContext, entry: HistoryEntry): string {
  return context.baseUrl ?? entry.data.baseUrl ?? '';
}

function notFound(id: string): WebhookError {
  return new WebhookError('HISTORY_NOT_FOUND', `No kept call has the id ${JSON.stringify(id)}.`, {
    hint: 'Kept calls are removed past the history store\'s retention (maxAgeMs, maxEntries).',
  });
}
