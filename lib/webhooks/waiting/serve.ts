/**
 * The resume call's own stages: match (the address's id, its signature, the wait entry, suffix and method), and the
 * claim that lets exactly one call resume a wait. Everything between them (guards, payload) is the webhook path's.
 */
import type { IncomingMessage } from 'node:http';
import { WebhookError } from '../../core/errors.js';
import { errorFields } from '../../core/logger.js';
import { PREFLIGHT_VARY, preflightHeaders } from '../guards/cors.js';
import type { PreflightAnswer } from '../guards/preflight.js';
import { MethodNotAllowedError, type WebhookMatch } from '../request/match.js';
import type { RequestTarget } from '../request/target.js';
import type { ExecutionResult, HttpMethod, TriggerItem, WebhookRun } from '../../core/types.js';
import type { WebhookEventListener } from '../../core/events.js';
import type { WebhookRegistry } from '../registry/contract.js';
import type { Responder } from '../response/workflow-responder.js';
import { readWaitingPath, signatureParameter, verifyWait, withoutSignature } from './address.js';
import { resolveWait, waitWebhook, type ResolvedWait } from './definition.js';
import type { WaitingSettings } from './settings.js';
import type { WaitEntry } from '../../core/waits.js';

export interface WaitMatch extends WebhookMatch {
  entry: WaitEntry;
  wait: ResolvedWait;
  /** The call's query string without its signature, which the run must never see: it would hand on a key to its next waits. */
  search: string;
}

function notFound(what: string): WebhookError {
  return new WebhookError('WAIT_NOT_FOUND', `The waiting address "${what}" is not waiting for a call: it is unknown or expired.`, {
    hint: 'A resume address works while its run waits, until the wait\'s timeout or expiry; use the address exactly as the run gave it.',
  });
}

/** The 409 for an address whose run does not wait now, saying why. */
export function notWaiting(entry: WaitEntry): WebhookError {
  if (entry.status === 'finished') {
    return new WebhookError('WAIT_RUN_FINISHED', `The run of waiting address "${entry.waitId}" has finished already.`);
  }
  if (entry.resumedAt !== undefined) {
    return new WebhookError('WAIT_ALREADY_RESUMED', `The waiting address "${entry.waitId}" was resumed already; its run is running.`, {
      hint: 'A wait takes one call. If the run waits again at this address, call it then.',
    });
  }
  return new WebhookError('WAIT_RUN_RUNNING', `The run of waiting address "${entry.waitId}" is running and not waiting for a call yet.`, {
    hint: 'Call again once the run waits (retry after a moment).',
    headers: { 'retry-after': '1' },
  });
}

/**
 * A store of waits that does not answer (Redis away, a command past its timeout) leaves a resume unanswered either
 * way: a wait is never looked up or claimed in memory alone, so nothing was resumed. The store's own hint speaks of
 * production calls (served from memory), which is not true here: this one says what is, and when to call again.
 */
function unreachable(error: unknown): unknown {
  if (!(error instanceof WebhookError) || error.code !== 'REGISTRY_UNAVAILABLE') return error;
  return new WebhookError('REGISTRY_UNAVAILABLE', error.message, {
    cause: error.cause ?? error,
    hint: 'The store of waiting runs did not answer, so this call resumed nothing; the run still waits until its timeout. Call the same address again after the seconds Retry-After gives.',
    headers: { ...error.headers, 'retry-after': '1' },
  });
}

const MISSING_SIGNATURE = 'Resume addresses are signed, each for its own id and suffix: call the address exactly as the run gave it, '
  + 'with its signature query parameter.';

/** Finds the wait a call resumes, or throws the answer: 404, 403, 409, 405 (no method: any of the wait's). */
export async function matchWait(settings: WaitingSettings | undefined, target: RequestTarget, method: string | undefined): Promise<WaitMatch> {
  const address = readWaitingPath(target.rawPath);
  const shown = target.rawPath.replace(/\/+$/, '');
  if (address === undefined || settings?.secret === undefined || settings.store === undefined) throw notFound(shown);
  if (!verifyWait(settings.secret, address.waitId, address.suffix, signatureParameter(target.search))) {
    throw new WebhookError('WAIT_SIGNATURE_INVALID', 'The resume address\'s signature is missing, wrong, or made for another address.', { hint: MISSING_SIGNATURE });
  }
  const entry = await settings.store.getWait(address.waitId).catch((error: unknown) => { throw unreachable(error); });
  if (entry === undefined) throw notFound(shown);
  if (entry.status !== 'waiting') throw notWaiting(entry);
  let wait: ResolvedWait;
  try {
    wait = resolveWait(entry.wait ?? {}, settings.limits);
  } catch (error) {
    throw new WebhookError('INTERNAL_ERROR', 'The stored wait could not be read.', { cause: error });
  }
  if (address.suffix !== wait.suffix) throw notFound(shown);
  // The run waits in another process, which only it can resume; claiming here would leave it waiting for nothing.
  if (entry.form === 'inRun' && entry.holder !== settings.holder) throw onOtherInstance(entry);
  const upper = (method?.toUpperCase() ?? wait.parameters.methods[0]) as HttpMethod;
  if (!wait.parameters.methods.includes(upper)) throw new MethodNotAllowedError(upper, wait.parameters.methods);
  return { entry, wait, webhook: waitWebhook(entry, wait, upper), params: {}, search: withoutSignature(target.search) };
}

/** OPTIONS at a resume address: `Allow`, or a CORS preflight answered by the wait's `allowedOrigins`. */
export async function waitingOptions(settings: WaitingSettings | undefined, target: RequestTarget, req: IncomingMessage): Promise<PreflightAnswer> {
  const origin = req.headers.origin;
  const requested = req.headers['access-control-request-method'];
  const match = await matchWait(settings, target, origin === undefined || requested === undefined ? undefined : requested.trim());
  const methods = match.wait.parameters.methods;
  if (origin === undefined || requested === undefined) return { status: 204, headers: { allow: ['OPTIONS', ...methods].join(', '), vary: PREFLIGHT_VARY } };
  return { status: 204, headers: preflightHeaders(match.wait.parameters.allowedOrigins, origin, methods, req.headers['access-control-request-headers']) };
}

function onOtherInstance(entry: WaitEntry): WebhookError {
  return new WebhookError('WAIT_ON_OTHER_INSTANCE', `The run of waiting address "${entry.waitId}" waits in another instance of the server.`, {
    hint: 'run.waitForCall() keeps the run in its process: route resume addresses to the instance that made them, or use run.suspend(), '
      + 'which any instance resumes.',
  });
}

/**
 * Hands the call's item to the run that waits in this process; resolves as that run ends. With responseMode
 * `responseNode`, the run's `respond()` answers this call from now on.
 */
export function resumeInRun(settings: WaitingSettings, match: WaitMatch, run: WebhookRun, responder: Responder): Promise<ExecutionResult> {
  const waiter = settings.local.get(match.entry.waitId);
  // The run stopped waiting (its timeout, its signal) as this call claimed the address.
  if (waiter === undefined) throw notWaiting({ ...match.entry, status: 'running' });
  const respond = match.wait.parameters.responseMode === 'responseNode' ? responder.respond : undefined;
  return waiter.deliver(run.items[0] as TriggerItem, respond);
}

/** Tells the host's onEvent of suspended waits that expired with nobody calling. */
export function watchExpiries(registry: WebhookRegistry, onEvent: WebhookEventListener | undefined): () => void {
  if (onEvent === undefined || registry.onWaitExpired === undefined) return () => undefined;
  return registry.onWaitExpired((entry) => {
    if (entry.form !== 'suspended') return;
    try {
      onEvent({
        type: 'expired', waitId: entry.waitId, form: 'suspended', workflowId: entry.workflowId, nodeName: entry.wait?.nodeName ?? entry.nodeName,
        mode: entry.mode, callId: entry.callId ?? entry.waitId, durationMs: Date.now() - entry.startedAt,
      });
    } catch {
      // A failing listener must not stop the sweep.
    }
  });
}

/** Takes the wait for this call; another call that took it first makes this one a 409. */
export async function claimWaitCall(settings: WaitingSettings, match: WaitMatch): Promise<WaitEntry> {
  const store = settings.store as NonNullable<WaitingSettings['store']>;
  const claim = await store.claimWait(match.entry.waitId, Date.now()).catch((error: unknown) => { throw unreachable(error); });
  if (claim.claimed) return claim.entry;
  if (claim.entry === undefined) throw notFound(match.entry.waitId);
  throw notWaiting(claim.entry);
}

/**
 * Gives a claimed wait back: the call that claimed it was refused before its run was stored (queue mode's 503, 413,
 * 429), so nothing resumes it, and a retry of the call must find it waiting as before. Only a claim that still
 * stands is undone (`expect: 'running'`): a run that went on meanwhile keeps what it wrote.
 */
export function giveBackWait(settings: WaitingSettings, match: WaitMatch): void {
  const { waitId, workflowId } = match.entry;
  (settings.store as NonNullable<WaitingSettings['store']>).putWait(match.entry, 'running').then((given) => {
    if (!given) settings.logger.warn({ waitId, workflowId }, 'waiting webhook: a refused call\'s claim could not be given back; the wait was changed meanwhile');
  }, (error: unknown) => {
    settings.logger.error({ waitId, workflowId, err: errorFields(error) }, 'waiting webhook: a refused call\'s claim could not be given back; the wait stays claimed');
  });
}
