/**
 * Whether a kept call can run again as it came, and its trigger item rebuilt from what was kept: the headers, query
 * and path parameters as kept (credentials stay `[redacted]`: a credential is checked, never kept), the body and
 * each file whole. The webhook it runs through is the one active now for its workflow, node and method.
 */
import { WebhookError } from '../../core/errors.js';
import type { HistoryEntry } from '../../core/history.js';
import type { BinaryData, Item } from '../../core/types.js';
import type { RegisteredWebhook, WebhookRegistry } from '../registry/contract.js';

function notReplayable(entry: HistoryEntry, why: string, hint?: string): WebhookError {
  return new WebhookError('HISTORY_NOT_REPLAYABLE', `The kept call ${entry.id} cannot be replayed: ${why}.`, hint === undefined ? {} : { hint });
}

/** Refuses a call that cannot be run again as it came: a resume, a body or file not kept whole. */
export function checkReplayable(entry: HistoryEntry): void {
  const { data } = entry;
  if (entry.waitId !== undefined) throw notReplayable(entry, 'it resumed a waiting run, whose wait is over');
  if (data.bodyKept === 'truncated') {
    throw notReplayable(entry, `its body (${data.bodySize} bytes) was larger than history.bodyBytes and was kept in part only`,
      'Raise history.bodyBytes to keep bodies of this size whole; calls kept from then on can be replayed.');
  }
  if (data.bodyKept === 'none' && data.bodySize > 0) {
    throw notReplayable(entry, 'its body was not kept', 'Set history.bodyBytes to keep bodies; calls kept from then on can be replayed.');
  }
  const lost = data.files.find((file) => file.data === undefined);
  if (lost !== undefined) {
    throw notReplayable(entry, `its file "${lost.property}" (${lost.size} bytes) was not kept`,
      'Set history.fileBytes to at least the size of the files to keep them; calls kept from then on can be replayed.');
  }
}

/** The production webhook active now for the call's workflow, node and method. */
export async function activeWebhook(registry: WebhookRegistry, entry: HistoryEntry): Promise<RegisteredWebhook> {
  const webhooks = await registry.list();
  const found = webhooks.find((webhook) => webhook.kind === 'production' && webhook.workflowId === entry.workflowId
    && webhook.nodeName === entry.nodeName && webhook.method === entry.method);
  if (found === undefined) {
    throw notReplayable(entry, `workflow "${entry.workflowId}" has no active ${entry.method} webhook on node "${entry.nodeName}"`,
      'Activate the workflow (with that node and method) and replay again.');
  }
  return found;
}

/** The trigger item of a kept call, as the webhook active now hands it to its workflow. */
export function storedItem(entry: HistoryEntry, webhookUrl: string): Item {
  const { data } = entry;
  const json: Record<string, unknown> = {
    headers: data.headers, params: data.params, query: data.query, body: data.body ?? {}, webhookUrl, executionMode: 'production',
  };
  if (data.files.length === 0) return { json };
  const binary: Record<string, BinaryData> = {};
  for (const file of data.files) {
    const bytes = Buffer.from(file.data as string, 'base64');
    const entryOf: BinaryData = { mimeType: file.mimeType, bytes: bytes.length, data: bytes };
    if (file.fileName !== undefined) entryOf.fileName = file.fileName;
    binary[file.property] = entryOf;
  }
  return { json, binary };
}
