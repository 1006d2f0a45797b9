/**
 * Headers written into a response the host may have prepared already (helmet's policies, a request id, its own
 * Vary): ours are added to the host's, never put in their place. `Vary` is appended to; a Content-Security-Policy
 * of ours joins the host's policy, so the stricter of both applies; every other header the host set stays as is
 * unless the answer must say otherwise (its own Content-Type, Content-Length).
 */
import type { ServerResponse } from 'node:http';
import vary from 'vary';

/** Sets one header of ours next to what the host set. */
export function addHeader(res: ServerResponse, name: string, value: string): void {
  if (name === 'vary') {
    vary(res, value);
    return;
  }
  if (name === 'content-security-policy') {
    const host = res.getHeader(name);
    if (typeof host === 'string' && host.trim() !== '') {
      // Two policies in one header: a browser enforces both, so the host's rules and our sandbox both hold.
      if (!host.split(/[;,]/).some((directive) => directive.trim() === value)) res.setHeader(name, `${host}, ${value}`);
      return;
    }
  }
  res.setHeader(name, value);
}

/** Adds the headers that must join the host's (Vary, CSP) and returns the rest for writeHead. */
export function mergeHostHeaders(res: ServerResponse, headers: Record<string, string>): Record<string, string> {
  const rest: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name] as string;
    if (name === 'vary' || name === 'content-security-policy') addHeader(res, name, value);
    else rest[name] = value;
  }
  return rest;
}
