/**
 * The OpenAPI 3.1 document of a set of production webhooks: one path per address, one operation per method, the
 * security schemes and error answers they share. Built from the registry's resolved webhooks only, in a fixed order,
 * so the same webhooks always give the same document.
 */
import type { RegisteredWebhook } from '../registry/contract.js';
import { pathShape } from '../registry/paths.js';
import { HTTP_METHODS } from '../../core/types.js';
import { rateLimitsOf as limitsOf, type ResolvedRateLimitPolicy } from '../../core/rate-limits.js';
import { operationIdOf, operationOf, workflowLabel } from './operation.js';
import { errorComponents, errorSchema } from './responses.js';
import { credentialOf, SecuritySchemes, type CredentialLookup } from './security.js';
import { waitingPath } from './waiting.js';
import type { StandardSchema } from '../../core/schemas.js';

/** An OpenAPI 3.1 document, as JSON. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers: { url: string; description?: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, unknown>;
    responses: Record<string, unknown>;
    securitySchemes?: Record<string, unknown>;
  };
}

/** Everything the document is built with, checked already. */
export interface DocumentSettings {
  /** Where the middleware is mounted, as callers reach it (no trailing slash). */
  baseUrl: string;
  title: string;
  version: string;
  description: string | undefined;
  /** First path segment of production addresses (the middleware's `productionPrefix`); '' when the base URL holds it. */
  productionPrefix: string;
  /** Status of the deadline's answer (the middleware's `timeoutStatus`). */
  timeoutStatus: number;
  /** The middleware's waitingPrefix when resume addresses are described. */
  waitingPrefix?: string | undefined;
  credentials: CredentialLookup | undefined;
  /** The middleware's `rateLimit.default`: the limit of addresses whose workflow sets none. */
  rateLimit: readonly ResolvedRateLimitPolicy[] | undefined;
  /** The middleware's `schemas` validators, for the payload schemas they can describe. */
  validators?: ReadonlyMap<string, StandardSchema> | undefined;
}

const DEFAULT_DESCRIPTION = 'The production webhooks of the active workflows, as they are now: the document changes whenever a workflow '
  + 'is activated or deactivated. Errors are answered as JSON { code, message, hint? } with a stable code.';

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Address (parameter names erased), then method, then workflow and node: the order paths and operations appear in. */
function byAddress(a: RegisteredWebhook, b: RegisteredWebhook): number {
  return compare(pathShape(a.path), pathShape(b.path))
    || HTTP_METHODS.indexOf(a.method) - HTTP_METHODS.indexOf(b.method)
    || compare(a.workflowId, b.workflowId)
    || compare(a.nodeName, b.nodeName);
}

/** The path key and its parameter names: literal segments percent-encoded, `:name` segments as `{name}`. */
function templateOf(path: string, prefix: string): { key: string; names: string[] } {
  const names: string[] = [];
  const segments = path === '' ? [] : path.split('/').map((segment) => {
    if (!segment.startsWith(':')) return encodeURIComponent(segment);
    names.push(segment.slice(1));
    return `{${segment.slice(1)}}`;
  });
  return { key: `/${[...(prefix === '' ? [] : [prefix]), ...segments].join('/')}`, names };
}

/** One id per operation; a later webhook whose id is taken gets the first free `<id>2`, `<id>3`, … */
function operationIds(webhooks: readonly RegisteredWebhook[]): Map<RegisteredWebhook, string> {
  const taken = new Set<string>();
  const ids = new Map<RegisteredWebhook, string>();
  const byNode = [...webhooks].sort((a, b) => compare(a.workflowId, b.workflowId) || compare(a.nodeName, b.nodeName) || byAddress(a, b));
  for (const webhook of byNode) {
    const base = operationIdOf(webhook);
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = `${base}${n}`;
    taken.add(id);
    ids.set(webhook, id);
  }
  return ids;
}

/** Each node's credential once, all asked at the same time (a resolver may call a vault). */
async function credentialsOf(webhooks: readonly RegisteredWebhook[], lookup: CredentialLookup | undefined): Promise<Map<string, Record<string, unknown> | undefined>> {
  const nodes = new Map<string, RegisteredWebhook>();
  for (const webhook of webhooks) {
    if (webhook.parameters.authentication !== 'none') nodes.set(JSON.stringify([webhook.workflowId, webhook.nodeName]), webhook);
  }
  const entries = await Promise.all([...nodes].map(async ([key, webhook]) => [key, await credentialOf(webhook, lookup)] as const));
  return new Map(entries);
}

export async function buildDocument(webhooks: readonly RegisteredWebhook[], settings: DocumentSettings): Promise<OpenApiDocument> {
  const production = webhooks.filter((webhook) => webhook.kind === 'production').sort(byAddress);
  const credentials = await credentialsOf(production, settings.credentials);
  const security = new SecuritySchemes();
  const ids = operationIds(production);
  const paths: Record<string, Record<string, unknown>> = {};
  const addresses = new Map<string, { key: string; names: string[] }>();
  const tags = new Map<string, string>();
  const schemas: Record<string, unknown> = { WebhookError: errorSchema() };
  for (const webhook of production) {
    const shape = pathShape(webhook.path);
    let address = addresses.get(shape);
    if (address === undefined) {
      // The first node of an address names its parameters; others of the same shape are the same address.
      address = templateOf(webhook.path, settings.productionPrefix);
      addresses.set(shape, address);
      paths[address.key] = address.names.length === 0 ? {} : {
        parameters: address.names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      };
    }
    const nodeSecurity = security.of(webhook, credentials.get(JSON.stringify([webhook.workflowId, webhook.nodeName])));
    (paths[address.key] as Record<string, unknown>)[webhook.method.toLowerCase()] = operationOf(webhook, {
      operationId: ids.get(webhook) as string,
      security: nodeSecurity,
      canonicalNames: address.names,
      timeoutStatus: settings.timeoutStatus,
      rateLimit: limitsOf(webhook, settings.rateLimit),
      components: schemas,
      validators: settings.validators,
    });
    tags.set(workflowLabel(webhook), webhook.workflowId);
  }
  const schemes = security.schemes;
  if (settings.waitingPrefix !== undefined) {
    const [key, item] = waitingPath(settings.waitingPrefix);
    paths[key] = item;
    tags.set('Waiting runs', '');
  }
  return {
    openapi: '3.1.0',
    info: { title: settings.title, version: settings.version, description: settings.description ?? DEFAULT_DESCRIPTION },
    servers: [{ url: settings.baseUrl }],
    tags: [...tags].sort(([a], [b]) => compare(a, b)).map(([name, workflowId]) => ({
      name, description: workflowId === '' ? 'Resume addresses of runs that wait for a call' : `Workflow ${workflowId}`,
    })),
    paths,
    components: {
      schemas,
      responses: errorComponents(settings.timeoutStatus),
      ...(Object.keys(schemes).length === 0 ? {} : { securitySchemes: schemes }),
    },
  };
}
