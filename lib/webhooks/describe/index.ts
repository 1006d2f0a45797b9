/**
 * `describeWebhooks()`: the OpenAPI 3.1 document of a registry's active production webhooks, for teams that call
 * them from other services (to read, to generate clients from, to test against). Not a stage of the request path:
 * only the middleware's wiring uses it, to serve the document (option `openApi`).
 */
import type { WebhookRegistry } from '../registry/contract.js';
import { buildDocument, type OpenApiDocument } from './document.js';
import { describeSettings, type DescribeWebhooksOptions } from './settings.js';

export type { OpenApiDocument } from './document.js';
export type { DescribeWebhooksOptions, OpenApiRouteOptions } from './settings.js';
export type { CredentialLookup } from './security.js';

/**
 * Describes the registry's active production webhooks as an OpenAPI 3.1 document: one path per address, one
 * operation per method, the bodies each node accepts, its authentication and its answers, errors included.
 *
 * @example
 * const document = await describeWebhooks(registry, { baseUrl: 'https://api.example.com/api/automation', title: 'Orders', version: '2.1.0' });
 * await writeFile('openapi.json', JSON.stringify(document, null, 2));
 */
export async function describeWebhooks(registry: Pick<WebhookRegistry, 'list'>, options: DescribeWebhooksOptions): Promise<OpenApiDocument> {
  const settings = describeSettings(options);
  if (typeof registry?.list !== 'function') {
    throw new TypeError('workflow-webhooks: describeWebhooks needs a registry with list(), such as MemoryWebhookRegistry or RedisWebhookRegistry.');
  }
  return buildDocument(await registry.list(), settings);
}
