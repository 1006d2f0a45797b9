/**
 * The idempotency key of a call, from which its job id derives: a sender's retry of a call already stored gets the
 * same job id, so BullMQ stores it once and the workflow runs once. Only what a verified signature vouches for (or a
 * header the workflow named) counts; a call without a key gets a job id of its own. A key holds within one method,
 * path, query and verified caller (see jobIdOf).
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { BinaryData, Item, TriggerJson, WebhookRun, WorkflowSettings } from '../core/types.js';
import { fingerprintKey, type Keyring } from '../core/sealing.js';

function header(json: TriggerJson, name: string): string | undefined {
  const value = json.headers[name.toLowerCase()];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function bodyId(json: TriggerJson, field: string): string | undefined {
  const body = json.body as Record<string, unknown> | null | undefined;
  const value = typeof body === 'object' && body !== null ? body[field] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The sender's own delivery id of a verified signed call: each known sender puts it in its own place. */
function signedMessageId(json: TriggerJson): string | undefined {
  const signature = json.signature;
  if (signature === undefined) return undefined;
  switch (signature.scheme) {
    case 'github': return header(json, 'x-github-delivery');
    case 'shopify': return header(json, 'x-shopify-webhook-id');
    case 'stripe': return bodyId(json, 'id');
    case 'slack': return bodyId(json, 'event_id');
    default: return signature.messageId;
  }
}

/** The call's idempotency key, or undefined. */
export function idempotencyKeyOf(run: WebhookRun, settings: WorkflowSettings | undefined): string | undefined {
  const json = run.items[0]?.json as TriggerJson | undefined;
  // A replay is a new run on purpose, never answered as an earlier call (its kept headers hold `[redacted]` for the
  // key, the same for every replay): the history store's claim keeps each replay to one.
  if (json === undefined || run.replay !== undefined) return undefined;
  const signed = signedMessageId(json);
  if (signed !== undefined) return `signed:${signed}`;
  const named = settings?.idempotencyHeader;
  if (named === undefined) return undefined;
  const value = header(json, named === true ? 'idempotency-key' : named);
  return value === undefined ? undefined : `header:${value}`;
}

/** A parsed query or path parameters with their names in one order: `?a=1&b=2` and `?b=2&a=1` are one query. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  return Object.keys(record).sort().map((name) => [name, canonical(record[name])]);
}

/**
 * The job id: from the key, within what the call asked for and who asked, as a payment API holds a key within one
 * account: the workflow node and mode (a test call never answers for a production one), the method, the path
 * parameters, the query, and the caller the node's authentication verified (never the credential itself). So a call
 * that differs in any of them is a call of its own, with a job and a body check of its own: it neither gets another
 * caller's answer nor is refused 422 because another caller used the key first. BullMQ job ids may not hold ':' nor
 * be whole numbers, hence a hash.
 */
export function jobIdOf(run: WebhookRun, key: string | undefined, caller: string | undefined): string {
  if (key === undefined) return randomUUID();
  const json = run.items[0]?.json as TriggerJson | undefined;
  const scope = JSON.stringify([run.workflowId, run.nodeName, run.mode, run.method, canonical(json?.params ?? {}), canonical(json?.query ?? {}), caller ?? null, key]);
  return `idem-${createHash('sha256').update(scope).digest('hex').slice(0, 40)}`;
}

/**
 * What makes a repeat a retry: the same body. The fingerprint covers the body as parsed and each file's media type
 * and size, and the bytes of files held in memory (a file on disk is known by its type and size: reading it again
 * for this would double the cost of every large upload; its name may be one made up for this call). Headers are
 * not part of it (senders add delivery attempts and timestamps there); the query is part of the key's scope instead.
 * With the `encryption` option it is an HMAC under a key derived from the current key, prefixed with that key's id
 * (`k1:…`): a plain hash of a small body (a PIN, an amount) is found again by trying every body, an HMAC not without
 * the key.
 */
export function bodyFingerprint(item: Item | undefined, keyring?: Keyring): string {
  const keyed = keyring === undefined ? undefined : fingerprintKey(keyring);
  const hash = keyed === undefined ? createHash('sha256') : createHmac('sha256', keyed.key);
  hash.update(JSON.stringify(item?.json.body ?? null) ?? 'undefined');
  const binary = item?.binary ?? {};
  for (const property of Object.keys(binary).sort()) {
    const file = binary[property] as BinaryData;
    hash.update(`\0${property}\0${file.mimeType}\0${file.bytes ?? file.fileSize ?? ''}\0`);
    if (file.data !== undefined) hash.update(file.data);
  }
  return keyed === undefined ? hash.digest('base64url') : `${keyed.kid}:${hash.digest('base64url')}`;
}
