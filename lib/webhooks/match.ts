/**
 * Second stage: find the registered webhook for the call, or fail with the known platform's 404 text, or a 405
 * with `Allow` where the path exists for other methods (HTTP says 405; the known platform says 404).
 */
import { WebhookError } from './errors.js';
import type { RequestTarget } from './request-target.js';
import type { HttpMethod, RegisteredWebhook, WebhookRegistry } from './types.js';

export interface WebhookMatch {
  webhook: RegisteredWebhook;
  params: Record<string, string>;
}

/** A 405 carries the methods the path does accept, for the `Allow` header. */
export class MethodNotAllowedError extends WebhookError {
  readonly allow: HttpMethod[];

  constructor(method: string, allow: HttpMethod[]) {
    super('WEBHOOK_METHOD_NOT_ALLOWED',
      `This webhook is not registered for ${method} requests. Did you mean to make a ${listOf(allow)} request?`);
    this.name = 'MethodNotAllowedError';
    this.allow = allow;
  }
}

function listOf(methods: readonly string[]): string {
  if (methods.length <= 1) return methods.join('');
  return `${methods.slice(0, -1).join(', ')} or ${methods[methods.length - 1] ?? ''}`;
}

const PRODUCTION_HINT =
  'The workflow must be active for a production URL to run successfully. Activate the workflow, then try again. ' +
  'Production calls are not shown in the editor, only in the workflow\'s executions.';

export async function matchWebhook(
  registry: WebhookRegistry,
  target: RequestTarget,
  method: string,
): Promise<WebhookMatch> {
  const lookup = await registry.lookup(target.kind, method, target.rawPath);
  if (lookup.found) return { webhook: lookup.webhook, params: lookup.params };
  if (lookup.methods.length > 0) throw new MethodNotAllowedError(method, lookup.methods);
  const shown = target.rawPath.replace(/\/+$/, '');
  throw new WebhookError('WEBHOOK_NOT_FOUND', `The requested webhook "${method} ${shown}" is not registered.`, {
    hint: PRODUCTION_HINT,
  });
}
