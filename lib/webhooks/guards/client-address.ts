/**
 * The caller's address, through the trusted proxies only: with `proxyHops` 0 the socket's address is the caller and
 * X-Forwarded-For is ignored (a spoofed header never passes); with n hops, the n nearest entries are trusted and the
 * address before them is the caller. proxy-addr does the parsing.
 */
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

export function clientAddress(req: IncomingMessage, proxyHops: number): string {
  if (proxyHops === 0) return req.socket.remoteAddress ?? '';
  return proxyaddr(req, (_address, hop) => hop < proxyHops);
}
