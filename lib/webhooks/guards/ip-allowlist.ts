/**
 * The node option `ipWhitelist` ("IP(s) Allowlist"): addresses and CIDR ranges, IPv4 and IPv6, separated by commas
 * (white space and empty entries ignored, so a trailing comma is harmless). Compiled once at activation with
 * proxy-addr, which also matches IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) against IPv4 rules. An entry that is
 * not an address refuses the activation, instead of being skipped silently.
 */
import proxyaddr from 'proxy-addr';
import { WebhookError } from '../errors.js';

export type IpAllowlist = (address: string) => boolean;

export function compileAllowlist(nodeName: string, value: unknown): IpAllowlist | undefined {
  if (value === undefined || value === '' || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new WebhookError('WEBHOOK_INVALID_NODE', `Webhook node "${nodeName}": options.ipWhitelist must be a comma-separated string.`);
  }
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return undefined;
  for (const entry of entries) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new WebhookError('WEBHOOK_INVALID_NODE', `Webhook node "${nodeName}": options.ipWhitelist has "${entry}", which is not an IP address or CIDR range.`, {
        hint: 'Use addresses such as 203.0.113.7 or 2001:db8::1, and ranges such as 10.0.0.0/8 or 2001:db8::/32.',
      });
    }
  }
  const trusted = proxyaddr.compile(entries);
  return (address) => trusted(address, 0);
}

export function checkAllowlist(allowlist: IpAllowlist | undefined, address: string): void {
  if (allowlist === undefined || allowlist(address)) return;
  throw new WebhookError('WEBHOOK_IP_NOT_ALLOWED', `The address ${address} is not allowed to call this webhook.`, {
    hint: 'Add the address to the node\'s IP allowlist. Behind a reverse proxy, set the middleware option proxyHops (or PLATFORM_PROXY_HOPS) to the number of proxies, so the caller\'s own address is used.',
  });
}
