/**
 * Match: find the registered webhook for the call, or fail with the known platform's 404 text, or a 405
 * with `Allow` where the path exists for other methods (HTTP says 405; the known platform says 404).
 */
import { WebhookError } from '../../core/errors.js';
import type { RequestTarget } from './target.js';
import type { HttpMethod, WebhookKind } from '../../core/types.js';
import type { NotListeningReason, RegisteredWebhook, WebhookLookup, WebhookRegistry } from '../registry/contract.js';

export interface WebhookMatch {
  webhook: RegisteredWebhook;
  params: Record<string, string>;
}

/** A 405 carries the methods the path does accept, for the `Allow` header. */
export class MethodNotAllowedError extends WebhookError {
  readonly allow: HttpMethod[];

  constructor(method: string, allow: HttpMethod[]) {
    super('WEBHOOK_METHOD_NOT_ALLOWED',
      `This webhook is not registered for ${method} requests. Did you mean to make a ${listOf(allow)} request?`,
      { headers: { allow: allow.join(', ') } });
    this.name = 'MethodNotAllowedError';
    this.allow = allow;
  }
}

function listOf(methods: readonly string[]): string {
  if (methods.length <= 1) return methods.join('');
  return `${methods.slice(0, -1).join(', ')} or ${methods[methods.length - 1] ?? ''}`;
}

const WHY_NOT_LISTENING: Record<NotListeningReason, string> = {
  neverListened: 'Nothing is listening for a test event on it.',
  timedOut: 'Its listening window ended before a call arrived.',
  received: 'It already received its one test call.',
  cancelled: 'Listening for a test event was cancelled.',
};

const TEST_HINT =
  'Click "Listen for test event" (start listening), then call the test address again. In test mode the address ' +
  'accepts one call, within the listening window (120 seconds by default).';

/** The test address does not listen; `reason` says why when the registry still knows. */
export function notListening(method: string, path: string, reason: NotListeningReason = 'neverListened'): WebhookError {
  return new WebhookError('WEBHOOK_TEST_NOT_LISTENING',
    `The test webhook "${method} ${path.replace(/\/+$/, '')}" is not listening. ${WHY_NOT_LISTENING[reason]}`, { hint: TEST_HINT });
}

const PRODUCTION_HINT =
  'The workflow must be active for a production URL to run successfully. Activate the workflow, then try again. ' +
  'Production calls are not shown in the editor, only in the workflow\'s executions.';

export type LookupNow = (kind: WebhookKind, method: string, path: string) => WebhookLookup;

/**
 * The registry's `lookupNow`, when it answers for the registry's own `lookup()`: both defined on the same object of
 * its prototype chain. A registry whose `lookup()` was replaced (on the instance, or in a subclass that kept the
 * inherited `lookupNow`) is asked through `lookup()` only, so that a wrapper is never bypassed. Decided once, at
 * the factory.
 */
export function immediateLookup(registry: WebhookRegistry): LookupNow | undefined {
  if (typeof registry.lookupNow !== 'function') return undefined;
  for (let holder: object | null = registry; holder !== null; holder = Object.getPrototypeOf(holder) as object | null) {
    const ownsNow = Object.hasOwn(holder, 'lookupNow');
    const ownsLookup = Object.hasOwn(holder, 'lookup');
    if (ownsNow || ownsLookup) return ownsNow && ownsLookup ? registry.lookupNow.bind(registry) : undefined;
  }
  return undefined;
}

/**
 * The match at once where the registry answers from memory (`now`, from immediateLookup()), else once its
 * `lookup()` resolves; a refusal is thrown, or rejected.
 */
export function matchWebhook(registry: WebhookRegistry, target: RequestTarget, method: string, now?: LookupNow): WebhookMatch | Promise<WebhookMatch> {
  if (target.kind === 'waiting') throw new TypeError('A resume address is matched by its wait, not by the registry\'s routes.');
  if (now !== undefined) return matchOf(now(target.kind, method, target.rawPath), target, method);
  return registry.lookup(target.kind, method, target.rawPath).then((lookup) => matchOf(lookup, target, method));
}

/** A found webhook is its own match (it has `webhook` and `params`); else the error that says why not. */
function matchOf(lookup: WebhookLookup, target: RequestTarget, method: string): WebhookMatch {
  if (lookup.found) return lookup;
  if (lookup.methods.length > 0) throw new MethodNotAllowedError(method, lookup.methods);
  if (target.kind === 'test') throw notListening(method, target.rawPath, lookup.reason);
  const shown = target.rawPath.replace(/\/+$/, '');
  throw new WebhookError('WEBHOOK_NOT_FOUND', `The requested webhook "${method} ${shown}" is not registered.`, {
    hint: PRODUCTION_HINT,
  });
}
