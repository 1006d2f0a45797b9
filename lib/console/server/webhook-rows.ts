/**
 * The console's list of active addresses: the registry's production webhooks, its listening test webhooks and its
 * waiting runs, each with its full URL and how it is guarded. Nothing secret is listed: a credential reference shows
 * only the names it carries, and a waiting address shows without its signature.
 */
import { credentialOf } from '../../webhooks/describe/security.js';
import type { ListedTestWebhook, RegisteredWebhook, WebhookRegistry } from '../../webhooks/registry/contract.js';
import { SIGNATURE_SCHEMES, type WebhookMiddlewareSettings } from '../../core/types.js';
import type { WaitEntry } from '../../core/waits.js';
import { keyKindOf, rateLimitsOf } from '../../core/rate-limits.js';
import type { CallRecord, GuardsDto, WebhookKindDto, WebhookListing, WebhookRow } from '../protocol.js';

/**
 * Names in a credential reference as n8n exports store it (`{ httpBasicAuth: { id, name } }`); any other shape is
 * the host's own and may hold the secret itself, so it shows as set, never as what it holds.
 */
export function credentialNames(reference: unknown): string[] | undefined {
  if (reference === undefined || reference === null) return undefined;
  if (typeof reference !== 'object' || Array.isArray(reference)) return ['(set)'];
  const names = Object.values(reference as Record<string, unknown>).map((entry) => {
    const name = typeof entry === 'object' && entry !== null ? (entry as { name?: unknown }).name : undefined;
    return typeof name === 'string' && name !== '' ? name : undefined;
  });
  return names.length > 0 && names.every((name) => name !== undefined) ? names as string[] : ['(set)'];
}

function guardsOf(webhook: RegisteredWebhook, settings: WebhookMiddlewareSettings): GuardsDto {
  const { parameters } = webhook;
  const guards: GuardsDto = { authentication: parameters.authentication, ignoreBots: parameters.ignoreBots };
  const names = parameters.authentication === 'none' ? undefined : credentialNames(webhook.credentials);
  if (names !== undefined) guards.credentials = names;
  const ipWhitelist = parameters.options.ipWhitelist;
  if (parameters.ipAllowlist !== undefined && typeof ipWhitelist === 'string') guards.ipAllowlist = ipWhitelist;
  if (parameters.allowedOrigins !== undefined) guards.allowedOrigins = parameters.allowedOrigins === '*' ? '*' : parameters.allowedOrigins.join(', ');
  const limits = webhook.kind === 'production' ? rateLimitsOf(webhook, settings.rateLimit) : undefined;
  if (limits !== undefined) {
    guards.rateLimits = limits.map(({ name, limit, windowMs, key }) => {
      const kind = keyKindOf(key);
      return kind === 'header' ? { name, limit, windowMs, key: kind, header: key } : { name, limit, windowMs, key: kind };
    });
  }
  return guards;
}

/** The production calls refused RATE_LIMITED among the recent ones, by workflow, node and address template. */
function refusalsOf(recent: readonly CallRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of recent) {
    if (call.code !== 'RATE_LIMITED' || call.mode !== 'production') continue;
    const key = `${call.workflowId ?? ''}\u0000${call.nodeName ?? ''}\u0000${call.route ?? ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * A signed node's scheme lives in its credential: asked of the middleware's resolver, as the OpenAPI document asks it,
 * and only the scheme's name is kept.
 */
async function signatureSchemeOf(webhook: RegisteredWebhook, settings: WebhookMiddlewareSettings): Promise<string | undefined> {
  if (webhook.parameters.authentication !== 'signatureAuth') return undefined;
  const scheme = (await credentialOf(webhook, settings.credentials))?.scheme;
  return typeof scheme === 'string' && (SIGNATURE_SCHEMES as readonly string[]).includes(scheme) ? scheme : undefined;
}

/** One row per (kind, workflow, node, path): a multi-method node's methods share it. */
async function rowsOf(
  kind: 'production' | 'test', webhooks: readonly RegisteredWebhook[], base: string, prefix: string, settings: WebhookMiddlewareSettings,
  refusals = new Map<string, number>(),
): Promise<WebhookRow[]> {
  const rows = new Map<string, WebhookRow>();
  const signed: Promise<void>[] = [];
  for (const webhook of webhooks) {
    const key = `${webhook.workflowId}\u0000${webhook.nodeName}\u0000${webhook.path}`;
    const known = rows.get(key);
    if (known !== undefined) {
      if (!known.methods.includes(webhook.method)) known.methods.push(webhook.method);
      continue;
    }
    const row: WebhookRow = {
      kind,
      workflowId: webhook.workflowId,
      nodeName: webhook.nodeName,
      methods: [webhook.method],
      path: webhook.path,
      url: `${base}/${prefix}/${webhook.path}`,
      responseMode: webhook.parameters.responseMode,
      guards: guardsOf(webhook, settings),
    };
    if (row.guards.rateLimits !== undefined) row.refused = refusals.get(`${webhook.workflowId}\u0000${webhook.nodeName}\u0000/${prefix}/${webhook.path}`) ?? 0;
    if (webhook.workflowName !== undefined) row.workflowName = webhook.workflowName;
    const expiresAt = (webhook as Partial<ListedTestWebhook>).expiresAt;
    if (expiresAt !== undefined) row.expiresAt = expiresAt;
    rows.set(key, row);
    signed.push(signatureSchemeOf(webhook, settings).then((scheme) => { if (scheme !== undefined) row.guards.signatureScheme = scheme; }));
  }
  await Promise.all(signed);
  return [...rows.values()].sort(byAddress);
}

function waitRow(entry: WaitEntry, base: string, prefix: string): WebhookRow {
  const wait = entry.wait ?? {};
  const suffix = wait.suffix === undefined || wait.suffix === '' ? '' : `/${wait.suffix.replace(/^\/+/, '')}`;
  const guards: GuardsDto = {
    authentication: wait.authentication ?? 'none', ignoreBots: wait.options?.ignoreBots === true, signed: true,
  };
  if (typeof wait.options?.ipWhitelist === 'string' && wait.options.ipWhitelist.trim() !== '') guards.ipAllowlist = wait.options.ipWhitelist;
  if (typeof wait.options?.allowedOrigins === 'string' && wait.options.allowedOrigins.trim() !== '') guards.allowedOrigins = wait.options.allowedOrigins;
  const row: WebhookRow = {
    kind: 'waiting',
    workflowId: entry.workflowId,
    nodeName: wait.nodeName ?? entry.nodeName,
    methods: [wait.httpMethod ?? 'POST'].flat().map((method) => method.toUpperCase()),
    path: `${entry.waitId}${suffix}`,
    url: `${base}/${prefix}/${entry.waitId}${suffix}`,
    responseMode: wait.responseMode ?? 'onReceived',
    guards,
    expiresAt: entry.expiresAt,
  };
  if (entry.workflowName !== undefined) row.workflowName = entry.workflowName;
  if (entry.form !== undefined) row.form = entry.form;
  return row;
}

const byAddress = (a: WebhookRow, b: WebhookRow): number => a.path.localeCompare(b.path) || a.workflowId.localeCompare(b.workflowId);

/**
 * Every active address; `base` is where the middleware is mounted, as callers reach it. `recent`: the calls the console
 * keeps, from which a rate-limited address counts its refusals.
 */
export async function listWebhooks(registry: WebhookRegistry, settings: WebhookMiddlewareSettings, base: string,
  recent: readonly CallRecord[] = []): Promise<WebhookListing> {
  const unlisted: WebhookKindDto[] = [];
  const [production, test, waits] = await Promise.all([
    registry.list(),
    registry.listTestWebhooks?.() ?? (unlisted.push('test'), Promise.resolve([])),
    settings.waiting ? registry.listWaits?.() ?? (unlisted.push('waiting'), Promise.resolve([])) : Promise.resolve([]),
  ]);
  return {
    webhooks: [
      ...await rowsOf('production', production, base, settings.productionPrefix, settings, refusalsOf(recent)),
      ...await rowsOf('test', test, base, settings.testPrefix, settings),
      ...waits.map((entry) => waitRow(entry, base, settings.waitingPrefix)),
    ],
    unlisted,
  };
}
