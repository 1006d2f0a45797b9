/**
 * A workflow's settings (rate limits; queue mode's scheduling), checked once at activation: a mistake is refused with
 * the workflow, never found by the first call. Only the settings given are kept, so a workflow without them looks as
 * it always did; a rate limit is kept in its complete form, which every instance resolves to the same.
 */
import { WebhookError } from '../../core/errors.js';
import { describeValue } from '../../core/option-checks.js';
import { resolveRateLimits } from '../../core/rate-limits.js';
import type { WorkflowSettings, WorkflowWebhooks } from '../../core/types.js';

const COUNTS = ['concurrency', 'maxQueued', 'attempts'] as const;
const LEAST: Record<(typeof COUNTS)[number], number> = { concurrency: 1, maxQueued: 0, attempts: 1 };
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function invalid(workflowId: string, message: string, hint?: string): WebhookError {
  return new WebhookError('WEBHOOK_INVALID_NODE', `Workflow "${workflowId}": ${message}`, {
    hint: hint ?? 'settings holds { concurrency?, maxQueued?, attempts? } as whole numbers, idempotencyHeader? as a header name or true, '
      + 'rateLimit? as { limit, windowMs, key? }, a list of them, or false, and history? as "all", "failed" or "none".',
  });
}

/** The workflow's settings, checked; undefined when it has none. */
export function resolveWorkflowSettings(workflow: WorkflowWebhooks): WorkflowSettings | undefined {
  const given: unknown = workflow.settings;
  if (given === undefined || given === null) return undefined;
  const id = workflow.workflowId;
  if (typeof given !== 'object' || Array.isArray(given)) throw invalid(id, 'settings must be an object.');
  const raw = given as Record<string, unknown>;
  const settings: WorkflowSettings = {};
  for (const key of COUNTS) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < LEAST[key]) {
      throw invalid(id, `settings.${key} must be a whole number of at least ${LEAST[key]}; got ${JSON.stringify(value) ?? String(value)}.`);
    }
    settings[key] = value;
  }
  const header = raw.idempotencyHeader;
  if (header !== undefined && header !== false) {
    if (header !== true && (typeof header !== 'string' || !HEADER_NAME.test(header))) {
      throw invalid(id, `settings.idempotencyHeader must be a header name or true; got ${JSON.stringify(header) ?? String(header)}.`);
    }
    settings.idempotencyHeader = header;
  }
  const history = raw.history;
  if (history !== undefined) {
    if (history !== 'all' && history !== 'failed' && history !== 'none') {
      throw invalid(id, `settings.history must be "all", "failed" or "none"; got ${describeValue(history)}.`);
    }
    settings.history = history;
  }
  const rateLimit = resolveRateLimits(raw.rateLimit, 'settings.rateLimit', (path, expected, value) => {
    throw invalid(id, `${path} must be ${expected}; got ${describeValue(value)}.`,
      'A rate limit is { limit, windowMs, key? }: limit calls per windowMs milliseconds, counted per address, per caller ("ip") or per value of a request header.');
  });
  if (rateLimit !== undefined) settings.rateLimit = rateLimit;
  return Object.keys(settings).length === 0 ? undefined : Object.freeze(settings);
}
