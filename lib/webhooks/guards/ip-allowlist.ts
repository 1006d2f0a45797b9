/**
 * The request-time half of the node option `ipWhitelist`: the caller's address against the allowlist compiled at
 * activation (registry/node-options.ts).
 */
import { WebhookError } from '../../core/errors.js';
import type { IpAllowlist } from '../registry/contract.js';

export function checkAllowlist(allowlist: IpAllowlist | undefined, address: string): void {
  if (allowlist === undefined || allowlist(address)) return;
  throw new WebhookError('WEBHOOK_IP_NOT_ALLOWED', `The address ${address} is not allowed to call this webhook.`, {
    hint: 'Add the address to the node\'s IP allowlist. Behind a reverse proxy, set the middleware option proxyHops (or PLATFORM_PROXY_HOPS) to the number of proxies, so the caller\'s own address is used.',
  });
}
