/**
 * A test call's run and outcome as text, to travel from the instance where the call ran to the one holding the
 * listen: JSON, with Buffers (binary data held in memory) as base64. Only the run's data travels, and the listener
 * gets it as plain data it can send on: respond(), the signal and the waiting members belong to the call and the
 * process it runs in, and a file path names a file on the other instance's disk.
 */
import type { CapturedRun } from '../contract.js';
import { ERROR_CODES, WebhookError, type WebhookErrorCode } from '../../../core/errors.js';
import type { ExecutionResult, WebhookRun } from '../../../core/types.js';

const BUFFER = '$buffer';

function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return Buffer.isBuffer(raw) ? { [BUFFER]: raw.toString('base64') } : value;
}

function reviver(_key: string, value: unknown): unknown {
  if (typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[BUFFER] === 'string'
    && Object.keys(value).length === 1) {
    return Buffer.from((value as Record<string, string>)[BUFFER] as string, 'base64');
  }
  return value;
}

export function encodeRun(run: WebhookRun): string {
  const { workflowId, workflowName, nodeName, mode, method, outputIndex, items, callId } = run;
  const plain: CapturedRun = { workflowId, workflowName, nodeName, mode, method, outputIndex, items, callId };
  return JSON.stringify(plain, replacer);
}

/** The run as the listener sees it: its data only, nothing that would act (or throw) in a process it never ran in. */
export function decodeRun(text: string): CapturedRun {
  return JSON.parse(text, reviver) as CapturedRun;
}

interface PlainOutcome {
  output?: ExecutionResult;
  error?: { message: string; code?: string; hint?: string };
}

export function encodeOutcome(outcome: { output?: ExecutionResult; error?: Error }): string {
  const plain: PlainOutcome = {};
  if (outcome.output !== undefined) plain.output = outcome.output;
  if (outcome.error !== undefined) {
    const { message } = outcome.error;
    const { code, hint } = outcome.error as Partial<WebhookError>;
    plain.error = { message, ...(code === undefined ? {} : { code }), ...(hint === undefined ? {} : { hint }) };
  }
  return JSON.stringify(plain, replacer);
}

export function decodeOutcome(text: string): { output?: ExecutionResult; error?: Error } {
  const plain = JSON.parse(text, reviver) as PlainOutcome;
  if (plain.error === undefined) return plain.output === undefined ? {} : { output: plain.output };
  const { message, code, hint } = plain.error;
  const known = code !== undefined && Object.hasOwn(ERROR_CODES, code);
  const error = known ? new WebhookError(code as WebhookErrorCode, message, { hint }) : new Error(message);
  return { error };
}
